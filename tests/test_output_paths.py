"""Issue 38, item 7: output names are checked before any work (docs/cli.md, "Output files"): a name that ends with
a folder separator, a name longer than the file system takes, a folder that does not exist. Each command that
writes a file refuses them at once in one line (exit 2), before it reads its input (a missing input would be
said first otherwise) or computes anything; a long name that fits is written (its temporary file fits too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(*args: object, cwd: Path | None = None):
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, [str(a) for a in args])
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


LONG = "x" * 300 + ".out"  # 304 bytes: more than the 255 of every common file system


def bad_names(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (the output path, what the one line says)."""
    return {
        "long": (str(tmp_path / LONG), "bytes long, more than the"),
        "trailing slash": (str(tmp_path / "page.html") + "/", "ends with a folder separator; give a file name"),
        "missing folder": (str(tmp_path / "no-such" / "page.html"), "does not exist"),
    }


# every command that writes a file, with a missing input where it reads one: the output is refused first
COMMANDS = {
    "report": lambda out, tmp: ["report", tmp / "missing.json", "-o", out],
    "analyze --svg": lambda out, tmp: ["analyze", tmp / "missing.json", "--svg", out],
    "count --plot": lambda out, tmp: ["count", tmp / "missing.json", "--history", "--plot", out],
    "puzzle sheet": lambda out, tmp: ["puzzle", "sheet", EXAMPLES / "puzzles" / "gofish", "-o", out],
    "tournament --output": lambda out, tmp: ["tournament", "--game", "gofish", "--agents", "random,random,random",
                                             "--games", "1000000", "--output", out],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", ["long", "trailing slash", "missing folder"])
def test_an_output_name_is_refused_before_any_work(tmp_path, command, kind):
    out, said = bad_names(tmp_path)[kind]
    if command == "count --plot":  # a plot is .png or .svg
        out = out.replace(".out", ".png").replace(".html", ".png")
    code, stdout, stderr = run(*COMMANDS[command](out, tmp_path))
    assert code == 2, (stdout, stderr)
    assert stderr.count("\n") == 1 and stderr.startswith("quaternity: "), stderr
    if command == "count --plot" and kind == "trailing slash":
        said = "the plot is written as .png or .svg"  # its file type, checked first: refused all the same
    assert said in stderr, stderr
    assert "missing.json" not in stderr  # the output was refused before the input was read
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # no temporary file left behind


def test_play_save_is_checked_before_the_game(tmp_path):
    out = str(tmp_path / LONG)
    code, stdout, stderr = run("play", "--game", "gofish", "--save", out, "--no-pause")
    assert code == 2 and "--save" in stderr and "bytes long" in stderr, stderr
    assert "What is known" not in stdout  # no game was played


def test_a_long_name_that_fits_is_written(tmp_path):
    """A name of 250 bytes fits (the limit is 255): its temporary file is named after a part of it, so the page
    is written, not refused after the work."""
    name = "y" * 245 + ".html"
    code, stdout, stderr = run("report", EXAMPLES / "gofish" / "stacky.json", "-o", tmp_path / name)
    assert code == 0, stderr
    assert (tmp_path / name).read_text().startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_the_library_says_why_a_name_cannot_be_written(tmp_path):
    from quaternity_cp.files import output_fault, write_atomic

    assert output_fault(tmp_path / "ok.html") is None
    assert "ends with a separator" in output_fault(str(tmp_path) + "/x/")
    assert "more than the" in output_fault(tmp_path / LONG)
    assert "does not exist" in output_fault(tmp_path / "no" / "x")
    assert list(tmp_path.iterdir()) == []  # the probes leave nothing
    target = tmp_path / ("z" * 250)
    write_atomic(target, "written")  # the temporary name of a 250-byte name fits
    assert target.read_text() == "written"
