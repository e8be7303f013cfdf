"""The documentation site builds with ``mkdocs build --strict``, and what the pages name exists.

Strict mode (with the ``validation`` settings of mkdocs.yml) turns a link to a
missing page, a missing anchor or a page left out of the menu into an error,
and so does an API page naming a module that is gone. The README is not part
of the site (it links into ``docs/`` for GitHub), so its links are checked
here. Besides: the site fetches nothing from the network (no web fonts, no
external scripts), the maps of the house list only folders and modules that
exist, and every ``quaternity_cp.x.y`` name and every project path the pages
mention can be found. The command samples of the pages are run by
``tests/test_readme.py``.
"""

from __future__ import annotations

import html
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = build(ROOT / "mkdocs.yml", out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def test_the_site_builds_strictly(site):
    assert (site / "index.html").is_file()
    for page in sorted(DOCS.rglob("*.md")):
        built = site / page.relative_to(DOCS).with_suffix("") / "index.html"
        if page.name == "index.md":
            built = site / page.relative_to(DOCS).parent / "index.html"
        assert built.is_file(), page
    api = (site / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert 'id="quaternity_cp.quartets.position.Position"' in api  # mkdocstrings rendered the docstrings


def test_a_broken_link_anchor_or_page_fails_the_build(tmp_path):
    """The same settings as the real site, on three small pages: each mistake is an error."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "b.md").write_text("# B\n\n## Real\n", encoding="utf-8")
    (docs / "left-out.md").write_text("# Not in the menu\n", encoding="utf-8")
    (docs / "index.md").write_text("# A\n\n[a](missing.md), [b](b.md#nope), [c](b.md#real)\n", encoding="utf-8")
    config.update(docs_dir=str(docs), plugins=["search"], nav=["index.md", "b.md"])
    config.pop("exclude_docs", None)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    log = result.stdout + result.stderr
    assert result.returncode != 0, log
    assert "'missing.md'" in log and "'#nope'" in log and "left-out.md" in log, log
    assert "#real" not in log, log


def test_the_site_fetches_nothing(site):
    for path in site.rglob("*"):
        if path.suffix not in (".html", ".css", ".js"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, path
        if path.suffix == ".html":
            remote = re.findall(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"', text)
            assert not remote, (path, remote)


def anchors_of(site: Path, page: str) -> set[str]:
    built = site / Path(page).with_suffix("") / "index.html"
    return {html.unescape(a) for a in re.findall(r'\bid="([^"]+)"', built.read_text(encoding="utf-8"))}


def test_the_readme_links_exist(site):
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(local) >= 10
    for link in local:
        target, _, anchor = link.partition("#")
        assert (ROOT / target).exists(), link
        if anchor:
            assert target.startswith("docs/") and target.endswith(".md"), link
            assert anchor in anchors_of(site, target.removeprefix("docs/")), link


def house_maps() -> list[tuple[str, list[str]]]:
    """The paths listed by every map of the house: the fenced block starting with ``quaternity_cp/``. A line
    indented by 0, 2 or 4 spaces names paths (at 2 and 4, inside the folder named last one level up); a line
    indented more goes on with the description before it."""
    maps = []
    for page in (README, DOCS / "library.md"):
        text = page.read_text(encoding="utf-8")
        block = re.search(r"```\n(quaternity_cp/ .*?)```", text, re.S)
        assert block, f"{page.name} has a map of the house"
        paths: list[str] = []
        folders = ["", "", ""]  # the folder named last at each level
        for line in block.group(1).splitlines():
            indent = len(line) - len(line.lstrip(" "))
            if indent not in (0, 2, 4):
                continue
            level = indent // 2
            names = re.split(r"\s{2,}", line.strip())[0].split()
            inside = "".join(folders[:level])
            paths += [inside + name for name in names]
            if names and names[-1].endswith("/"):
                folders[level] = names[-1]
        maps.append((page.name, paths))
    return maps


@pytest.mark.parametrize("page,paths", house_maps(), ids=lambda x: x if isinstance(x, str) else "")
def test_the_map_of_the_house_is_the_house(page, paths):
    assert len(paths) >= 20
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"{page} lists {missing}, which do not exist"


def test_every_module_name_and_path_the_pages_mention_exists():
    names: set[str] = set()
    paths: set[str] = set()
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        names.update(re.findall(r"\bquaternity_cp(?:\.\w+)+", text))
        paths.update(re.findall(r"(?<![\w/.])(?:quaternity_cp|cli|tests|benchmarks|examples|docs|\.ci)/[\w./-]*\w",
                                text))
    assert len(names) >= 20 and len(paths) >= 30
    # folders the tests make (e.g. tests/artifacts/ for screenshots) are named in .gitignore: not on a clean checkout
    made = [line.strip().rstrip("/") for line in (ROOT / ".gitignore").read_text().splitlines() if "/" in line]
    for path in sorted(paths):
        if any(path == folder or path.startswith(folder + "/") for folder in made):
            continue
        assert (ROOT / path).exists(), path
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            try:
                obj = importlib.import_module(module)
            except ModuleNotFoundError as error:
                if error.name != module:
                    raise
                continue
            for attribute in parts[cut:]:
                assert hasattr(obj, attribute), name
                obj = getattr(obj, attribute)
            break
        else:
            pytest.fail(f"no module for {name}")
