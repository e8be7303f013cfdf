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


def open_page(browser, width: int = 1280, height: int = 860, *, speed: str = "instant"):
    """A page in a fresh browser context (its own storage: one person) of that size, and the list its
    problems go to: JavaScript errors, console errors and every answer of status 400 or more.

    ``speed``: the table's pace for other players' moves (stored as the page stores it).
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script(f"try {{ localStorage.setItem('quaternity.speed', '{speed}'); }} catch (e) {{}}")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.on("response", lambda res: errors.append(f"{res.status} {res.url}") if res.status >= 400 else None)
    pg.set_default_timeout(30_000)
    return pg, errors


@pytest.fixture
def page(browser):
    """A fresh page (1280 x 860); any JavaScript error or failed request on it fails the test."""
    pg, errors = open_page(browser)
    yield pg
    pg.context.close()
    assert not errors, f"errors on the page: {errors}"


def screenshot(pg, name: str, *, full_page: bool = False) -> Path:
    """Save a screenshot of the page as a test artifact."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=full_page)
    return path


def assert_no_sideways_scroll(pg, what: str = "the page") -> None:
    """Nothing on the page is wider than the window (no horizontal scrolling)."""
    wide, window = pg.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= window, f"{what} is {wide} px wide in a window of {window} px"


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
