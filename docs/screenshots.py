"""Take the documentation's screenshots (docs/img/*.png) with the system's Chromium, headless.

    python docs/screenshots.py

Needs the test extras (playwright, the web extra) and /usr/bin/chromium; starts
`quaternity serve` on a free port and writes a report of examples/full-game-4p-8x4.json.
Pictures: the web table on a desktop (web-table.png) and on a phone (web-phone.png), a Quarto
table (web-quarto.png) and the report (report.png).
"""

from __future__ import annotations

import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
NAMES = ("web-table.png", "web-phone.png", "web-quarto.png", "report.png")


def small_png(path: Path) -> None:
    """Quantize to a 64-colour palette: a few tens of kilobytes instead of hundreds."""
    from PIL import Image

    Image.open(path).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def settle(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'")


def start(page, url: str, game: str, options: dict, seats: dict, seed: int) -> None:
    """Fill the page's form and start a table."""
    for _ in range(100):  # the server may still be starting
        try:
            page.goto(url)
            break
        except Exception:
            time.sleep(0.1)
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", game)
    for name, value in options.items():
        field = "#opt-" + name.replace("_", "-")
        if page.evaluate(f"document.querySelector('{field}').tagName") == "SELECT":
            page.select_option(field, value)
        else:
            page.fill(field, value)
            page.dispatch_event(field, "input")
    for seat, who in seats.items():
        page.select_option(f'#seat-list select[data-seat="{seat}"]', who)
    page.click("details.more summary")
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("body[data-screen='table'] #board svg")
    settle(page)


def play(page, rng: random.Random, moves: int) -> None:
    """Click ``moves`` of the person's moves (answers, questions through the card buttons)."""
    for _ in range(moves):
        settle(page)
        if page.evaluate("document.body.dataset.state") != "your-turn":
            return
        buttons = page.locator("#answers button, #declarations button")
        if buttons.count():
            buttons.first.click()
            continue
        picks = page.locator("#ask .seat-pick")
        picks.nth(rng.randrange(picks.count())).click()
        cards = page.locator("#ask .card-button")
        cards.nth(rng.randrange(cards.count())).click()
    settle(page)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)], cwd=ROOT)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.html"
            subprocess.run([sys.executable, "-m", "cli", "report", "examples/full-game-4p-8x4.json", "-o", str(report),
                            "--title", "full-game-4p-8x4.json"], cwd=ROOT, check=True)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
                # the report, a few moves in, with one explanation selected
                page = browser.new_page(viewport={"width": 1180, "height": 700})
                page.goto(report.as_uri())
                for _ in range(24):
                    page.keyboard.press("ArrowRight")
                page.click('#grid [data-card="E0"][data-state="forced"]')
                page.screenshot(path=str(OUT / "report.png"))
                page.close()
                # a classic table of three, the usual size, a few moves in, with an explanation
                desk = browser.new_context(viewport={"width": 1280, "height": 860})
                desk.add_init_script("localStorage.setItem('quaternity.speed', 'instant')")
                page = desk.new_page()
                for seed in range(8, 40):  # a game still going, with a set put down
                    start(page, url, "quartets", {"preset": "classic", "players": "3", "sets": "6", "set_size": "4"},
                          {0: "person", 1: "knowledge", 2: "knowledge"}, seed=seed)
                    rng = random.Random(3)
                    for _ in range(8):
                        if page.locator("#felt .chip").count():
                            break
                        play(page, rng, 1)
                    if page.evaluate("document.body.dataset.state") == "your-turn" and page.locator("#felt .chip").count():
                        break
                forced = page.locator('#board [data-state="forced"]:not([data-seat="0"])')
                if forced.count():
                    forced.first.click()
                    page.wait_for_function("document.querySelector('#explanation p:not(.hint)') !== null")
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(OUT / "web-table.png"))
                # the same table on a phone: the seat's link, opened in another browser
                link = page.evaluate("location.href")
                phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
                phone.add_init_script("localStorage.setItem('quaternity.speed', 'instant')")
                small = phone.new_page()
                small.goto(link)
                small.wait_for_selector("body[data-screen='table'] #board svg")
                settle(small)
                small.screenshot(path=str(OUT / "web-phone.png"))
                # Quarto against the greedy agent, a few moves in
                page = desk.new_page()
                start(page, url, "quarto", {}, {0: "person", 1: "greedy"}, seed=5)
                rng = random.Random(1)
                for _ in range(3):
                    settle(page)
                    if page.evaluate("document.body.dataset.state") != "your-turn":
                        break
                    cells = page.locator("#board .cell[data-legal]")
                    if cells.count():
                        cells.nth(rng.randrange(cells.count())).click()
                    pieces = page.locator("#board .left[data-legal]")
                    pieces.nth(rng.randrange(pieces.count())).click()
                settle(page)
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(OUT / "web-quarto.png"))
                browser.close()
    finally:
        server.terminate()
        server.wait()
    for name in NAMES:
        small_png(OUT / name)
        print(OUT / name, (OUT / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
