"""``quaternity serve``: play against the agents in a browser (a local web app)."""

from __future__ import annotations

import click

from .common import InputError, guarded


@click.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (127.0.0.1: this computer only).")
@guarded
def serve(port: int, host: str) -> None:
    """Play Quaternity, classic Quartets or Quarto against the agents in a browser.

    Starts a local web server; open http://HOST:PORT/ . Set up a game (any rule
    preset and size, or Quarto), pick an agent for every other seat and play by
    clicking; the knowledge grid beside the table shows who may hold each card
    (in classic, only what you may know), exact probabilities on demand and why
    a card is forced. Undo, new game and a downloadable record (it passes
    `quaternity check`). Needs the web extra: pip install "quaternity-cp[web]".
    Stop it with Ctrl-C.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError('serve needs the web extra: pip install "quaternity-cp[web]"') from None
    from quaternity_cp.web.app import serve as run

    click.echo(f"Quaternity table on http://{host}:{port}/  (Ctrl-C stops it)")
    run(host=host, port=port)
