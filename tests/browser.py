"""Shared helpers of the browser tests: Debian's Chromium driven by Playwright, headless.

No browser is ever downloaded: the tests use the system's Chromium
(``/usr/bin/chromium``, or ``QUATERNITY_CHROMIUM``) and skip, saying why, only
when there is none (CI installs Debian's ``chromium`` package first, see .ci/run).
Screenshots go to ``tests/artifacts/`` (not committed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).parent / "artifacts"


def chromium_path() -> str | None:
    """The system Chromium, or None."""
    for candidate in (os.environ.get("QUATERNITY_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium on this machine (install Debian's 'chromium' package; CI does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test extra: pip install '.[test]'")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, headless=True,
                                      args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    """A fresh page; any JavaScript error on it fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.set_default_timeout(60_000)
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def screenshot(pg, name: str) -> Path:
    """Save a screenshot of the page as a test artifact."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=False)
    return path


def shown_grid(pg, root: str = "#grid") -> dict[str, dict]:
    """The grid the page shows: card -> {"owners": [seats], "forced": seat or None}, read from the SVG."""
    cells = pg.eval_on_selector_all(
        f"{root} [data-card][data-seat]",
        "els => els.map(e => [e.dataset.card, parseInt(e.dataset.seat, 10), e.dataset.state])")
    out: dict[str, dict] = {}
    for card, seat, state in cells:
        entry = out.setdefault(card, {"owners": [], "forced": None})
        if state in ("possible", "forced"):
            entry["owners"].append(seat)
        if state == "forced":
            entry["forced"] = seat
    for entry in out.values():
        entry["owners"].sort()
    return out


def expected_grid(analysis: dict) -> dict[str, dict]:
    """The same shape from ``analyze --json``."""
    return {card: {"owners": sorted(v["owners"]), "forced": v["forced"]} for card, v in analysis["cards"].items()}
