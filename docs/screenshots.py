"""Take the documentation's screenshots (docs/img/*.png) with the system's Chromium, headless.

    python docs/screenshots.py

Needs the test extras (playwright, the web extra) and /usr/bin/chromium; starts
`quaternity serve` on a free port and writes a report of examples/full-game-4p-8x4.json.
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


def small_png(path: Path) -> None:
    """Quantize to a 64-colour palette: a few tens of kilobytes instead of hundreds."""
    from PIL import Image

    Image.open(path).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)], cwd=ROOT)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.html"
            subprocess.run([sys.executable, "-m", "cli", "report", "examples/full-game-4p-8x4.json", "-o", str(report),
                            "--title", "full-game-4p-8x4.json"], cwd=ROOT, check=True)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
                page = browser.new_page(viewport={"width": 1180, "height": 700})
                # the report, a few moves in, with one explanation selected
                page.goto(report.as_uri())
                for _ in range(24):
                    page.keyboard.press("ArrowRight")
                page.click('#grid [data-card="E0"][data-state="forced"]')
                page.screenshot(path=str(OUT / "report.png"))
                # the web table: a game in progress, with an explanation
                for _ in range(100):
                    try:
                        page.goto(f"http://127.0.0.1:{port}/")
                        break
                    except Exception:
                        time.sleep(0.1)
                page.wait_for_selector("body[data-ready='1']")
                page.fill("#players", "3")
                page.dispatch_event("#players", "change")
                page.fill("#sets", "5")
                page.fill("#set-size", "3")
                page.fill("#seed", "8")
                for seat in ("1", "2"):
                    page.select_option(f'#agents select[data-seat="{seat}"]', "random")
                page.click("#start")
                page.wait_for_selector("#board svg")
                rng = random.Random(3)
                for _ in range(3):
                    page.wait_for_function("document.body.dataset.busy === '0'")
                    answers = page.locator("#answers button")
                    if answers.count():
                        answers.first.click()
                        continue
                    cells = page.locator("#board [data-legal]")
                    if not cells.count():
                        break
                    cells.nth(rng.randrange(cells.count())).click()
                page.wait_for_function("document.body.dataset.busy === '0'")
                page.check("#probabilities")
                page.wait_for_function("document.body.dataset.busy === '0'")
                forced = page.locator("#board [data-state=forced]")
                if forced.count():
                    card = forced.first.get_attribute("data-card")
                    page.click(f'#board [data-card="{card}"] .card-label')
                page.wait_for_function("document.body.dataset.busy === '0'")
                page.screenshot(path=str(OUT / "web-table.png"))
                browser.close()
    finally:
        server.terminate()
        server.wait()
    for name in ("report.png", "web-table.png"):
        small_png(OUT / name)
        print(OUT / name, (OUT / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
