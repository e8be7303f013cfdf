"""The command samples and facts of the README and the docs pages, checked against the program so that they cannot drift.

**Which samples are checked.** In README.md and every page of ``docs/`` (the
documentation site), in a fenced code block without a language
(```` ``` ````), every line that starts with ``$ quaternity `` is a command,
run from the project's root through click's runner; the lines after it, up to
the next ``$`` line or the end of the block, are its output. The output is
compared line by line, after removing trailing spaces and normalising times
(``0.01 s``, ``12 ms``, ``300 games/s`` become ``<time>``), with two escapes:

- a line ``...`` stands for any number of lines (an elision), and a sample
  with an elision is an excerpt: lines may also precede and follow it;
- a command followed by ``(excerpt)`` is only run, not compared; so is a
  command with no output lines under it.

A ``# comment`` after a command is not part of it. Every command must exit
with 0 or 1 (1: the sample shows an illegal record), except a sample whose
output is an error line ``quaternity: ...``, which must exit with 2 (standard
error is compared with standard output, in the order printed). Blocks with a language
(```` ```sh ````, ```` ```json ````, ```` ```python ````) and lines not starting
with ``$ quaternity`` (``machine A$ dask ...``) are not run.

Facts checked besides: the number of puzzles the docs state, and that the
README, the docs and the package never send the reader to files outside the project.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: Every page whose samples are tests: the README and the docs pages (the API pages hold none).
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Sample:
    line: int  # 1-based line of the command in its page
    command: str
    expected: list[str] = field(default_factory=list)
    compare: bool = True
    page: str = "README.md"  # the page, relative to the project's root


def samples(text: str, page: str = "README.md") -> list[Sample]:
    out: list[Sample] = []
    in_block, language = False, ""
    current: Sample | None = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^\s*```(.*)$", line)
        if fence:
            if in_block:
                in_block, current = False, None
            else:
                in_block, language = True, fence.group(1).strip()
            continue
        if not in_block or language:
            continue
        if line.startswith("$ "):
            command = line[2:]
            compare = True
            if re.search(r"\(excerpt\)\s*$", command):
                command, compare = re.sub(r"\s*\(excerpt\)\s*$", "", command), False
            command = re.sub(r"\s+#.*$", "", command).strip()
            current = None
            if command.startswith("quaternity "):
                current = Sample(number, command, [], compare, page)
                out.append(current)
            continue
        if current is not None:
            current.expected.append(line)
    return out


TIME = re.compile(r"\b\d+(?:[.,]\d+)*\s?(?:s|ms|µs|games/s|games per second)\b")


def normalise(lines: list[str]) -> list[str]:
    out = [TIME.sub("<time>", line.rstrip()) for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line-by-line equality, where an expected ``...`` line matches any run of lines
    (and a sample with one may have more lines before and after it)."""
    if any(line.strip() == "..." for line in expected):
        expected = ["...", *expected, "..."]
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


SAMPLES = [s for path in PAGES for s in samples(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]


def run_sample(sample: Sample):
    args = shlex.split(sample.command)[1:]
    old = os.getcwd()
    os.chdir(ROOT)  # the samples name files relative to the project's root
    try:
        return CliRunner().invoke(main, args, env={"COLUMNS": "80", "NO_COLOR": "1"})
    finally:
        os.chdir(old)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"{s.page}:{s.line}-{s.command[11:50]}")
def test_sample(sample):
    result = run_sample(sample)
    error = any(line.startswith("quaternity: ") for line in sample.expected)
    assert result.exit_code in ((2,) if error else (0, 1)), (sample.command, result.exit_code, result.output[-800:])
    if not sample.compare or not sample.expected:
        return
    expected = normalise(sample.expected)
    actual = normalise(result.output.splitlines())
    assert matches(expected, actual), (
        f"{sample.page} line {sample.line}: `{sample.command}` printed\n" + "\n".join(actual)
        + "\n--- but the README shows ---\n" + "\n".join(expected)
    )


def test_the_core_commands_have_checked_samples():
    """The checker finds the samples (a parser that found none would pass everything):
    the README shows one per game, the command-line page every core command."""
    compared = [s for s in SAMPLES if s.compare and s.expected]
    assert len(compared) >= 15
    readme = {s.command.split()[1] for s in compared if s.page == "README.md"}
    assert {"explain", "count", "quarto"} <= readme, readme
    for command in ("check", "analyze", "explain", "count"):
        assert any(s.command.split()[1] == command for s in compared if s.page == "docs/cli.md"), command
    for page, command in [("docs/solver.md", "solve"), ("docs/quarto.md", "quarto"),
                          ("docs/classic.md", "tournament"), ("docs/classic.md", "check")]:
        assert any(s.page == page and s.command.split()[1] == command for s in compared), (page, command)


def test_the_sample_checker_catches_drift():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "b"], ["a", "c"]) and not matches(["a"], ["a", "b"])
    assert matches(["...", "c"], ["a", "b", "c", "d"]) and not matches(["...", "c", "b"], ["a", "b", "c", "d"])
    assert normalise(["in 0.01 s with engine flow.  ", ""]) == ["in <time> with engine flow."]
    text = "```\n$ quaternity check x.json   # note\nout\n...\n$ quaternity count y (excerpt)\nz\n```\n```sh\n$ quaternity no\n```\n"
    found = samples(text, "docs/x.md")
    assert {s.page for s in found} == {"docs/x.md"}
    assert [(s.command, s.expected, s.compare) for s in found] == [
        ("quaternity check x.json", ["out", "..."], True), ("quaternity count y", ["z"], False)]


NUMBERS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}


def test_the_puzzle_count():
    text = "\n".join(path.read_text(encoding="utf-8") for path in PAGES)
    puzzles = [p for p in (ROOT / "examples" / "puzzles").glob("*.json") if not p.name.endswith(".answer.json")]
    claims = re.findall(r"`examples/puzzles/` holds (\w+) puzzles", text)
    assert claims, "the docs say how many puzzles there are"
    for word in claims:
        assert NUMBERS.get(word, int(word) if word.isdigit() else None) == len(puzzles), word


def test_no_references_outside_the_project():
    """Users who clone the project have no ../shared/: the rules are docs/rules.md."""
    assert (ROOT / "docs" / "rules.md").is_file()
    for path in [*PAGES, *sorted((ROOT / "quaternity_cp").rglob("*.py")),
                 *sorted((ROOT / "cli").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "RULES.md" not in text, path
    assert "[docs/rules.md](docs/rules.md)" in README.read_text(encoding="utf-8")


def test_rule_examples_named_in_docs_exist():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    named = re.findall(r"`(\d-[a-z-]+\.txt)`", text)
    assert len(named) == 6
    for name in named:
        assert (ROOT / "examples" / "rules-examples" / name).is_file(), name
