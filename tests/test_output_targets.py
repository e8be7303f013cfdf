"""Outputs are written only over regular files: ``--force`` replaces an existing file, never a pipe, a device
or a symbolic link (renaming over one would turn it into a plain file); an output that cannot be written
(a full disk) is one line and exit 2, not an internal error."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from quaternity_cp.files import not_a_regular_file, write_atomic

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def targets(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    real = tmp_path / "real.html"
    real.write_text("keep me")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    return {"a pipe (FIFO)": fifo, "a symbolic link": link}


def unchanged(tmp_path: Path, path: Path, kind: str) -> None:
    mode = os.lstat(path).st_mode
    assert stat.S_ISFIFO(mode) if kind.startswith("a pipe") else stat.S_ISLNK(mode)
    assert (tmp_path / "real.html").read_text() == "keep me"


@pytest.mark.parametrize("command", [
    ("report", str(EXAMPLES / "three.txt"), "-o", "{}"),
    ("analyze", str(EXAMPLES / "three.txt"), "--svg", "{}"),
])
def test_force_never_replaces_a_pipe_or_a_link(tmp_path, command):
    for k, kind in enumerate(("a pipe (FIFO)", "a symbolic link")):
        folder = tmp_path / str(k)
        folder.mkdir()
        path = targets(folder)[kind]
        res = run(*(part.format(path) for part in command), "--force")
        assert res.returncode == 2, (kind, res.returncode, res.stderr)
        assert res.stderr.count("\n") == 1 and f"is {kind}, not a regular file" in res.stderr, res.stderr
        unchanged(folder, path, kind)
        for leftover in folder.iterdir():
            assert not leftover.name.startswith("."), leftover  # no temporary file left behind


def test_the_library_never_renames_over_a_pipe(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    assert not_a_regular_file(fifo) == "a pipe (FIFO)"
    with pytest.raises(OSError, match="a pipe"):
        write_atomic(fifo, "{}")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    plain = tmp_path / "plain.json"
    plain.write_text("old")
    assert not_a_regular_file(plain) is None and not_a_regular_file(tmp_path / "none") is None
    write_atomic(plain, "new")
    assert plain.read_text() == "new"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("check", str(EXAMPLES / "quaternity.json")),
                                  ("analyze", str(EXAMPLES / "position.json"), "--json")])
def test_a_full_disk_on_standard_output_is_one_line_and_exit_2(args):
    with open("/dev/full", "w") as full:
        res = run(*args, stdout=full)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert res.stderr == "quaternity: cannot write the output (No space left on device)\n"


#: commands whose output is rich's (tables, styled text) or JSON, of every game, and a file that is not there
PIPED = [("check", str(EXAMPLES / "position.json")), ("analyze", str(EXAMPLES / "position.json")),
         ("check", str(EXAMPLES / "position.json"), "--json"),
         ("solve", str(EXAMPLES / "puzzles" / "03-two-questions.json"), "--goal", "quartet"),
         ("gofish", "check", str(EXAMPLES / "gofish" / "stacky.json")),
         ("quarto", "check", str(EXAMPLES / "quarto" / "draw.json"))]


def on_closed_pipe(*args: str, stdout: bool = True, stderr: bool = False) -> subprocess.CompletedProcess:
    """The command run with standard output, standard error or both on a pipe whose reader has gone (every
    write fails with EPIPE, as in ``cmd | true``); standard error captured when it is not that pipe."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT,
                              stdout=w if stdout else subprocess.DEVNULL, stderr=w if stderr else subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    finally:
        os.close(w)


HELP = [("--help",), ("check", "--help"), ("gofish", "--help"), ("gofish", "check", "--help")]


@pytest.mark.parametrize("args", PIPED + HELP, ids=lambda a: " ".join(Path(x).name for x in a))
def test_a_closed_pipe_on_standard_output_is_one_line_and_exit_2(args):
    """rich's own handling would exit 1 silently, and click's after help, which is an illegal move's code."""
    res = on_closed_pipe(*args)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert res.stderr == "quaternity: cannot write the output (Broken pipe)\n"


@pytest.mark.parametrize("args", PIPED + [("check", "no-such-file.json")],
                         ids=lambda a: " ".join(Path(x).name for x in a))
def test_closed_standard_output_and_error_still_give_exit_2(args):
    """``cmd 2>&1 | head``: the one line cannot be written either, and the exit code still says bad output or
    bad input (click would make the failed write of the message exit code 1)."""
    assert on_closed_pipe(*args, stderr=True).returncode == 2


def test_an_illegal_record_keeps_exit_1_when_standard_error_is_closed():
    assert on_closed_pipe("check", str(EXAMPLES / "illegal.json"), stdout=False, stderr=True).returncode == 1
