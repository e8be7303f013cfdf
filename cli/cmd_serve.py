"""``quaternity serve``: play in a browser, alone against the agents or with friends at one table (a local web app)."""

from __future__ import annotations

import os

import click

from quaternity_cp.command import InputError, Whole, guarded

INSTALL_HINT = ('serve needs the web extra (Starlette and uvicorn): in a checkout of quaternity-cp run '
                'pip install ".[web]", or pip install starlette uvicorn')


@click.command()
@click.option("--port", type=Whole(1, 65535), default=8000, show_default=True, help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (127.0.0.1: this computer only; 0.0.0.0: every address, so other "
                   "machines can join).")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Another name the server answers to (repeatable; NAME or NAME:PORT), e.g. a name other "
                   "machines use for this one. Requests naming any other host are refused.")
@click.option("--db", "db", metavar="PATH",
              help="The table database (SQLite): every table is kept there, and a restarted server carries on "
                   "with them. Default: tables.sqlite3 in the user's data directory (said at start-up); "
                   "':memory:' keeps the tables only while the server runs.")
@click.option("--export", "export", metavar="DIR",
              help="Write the record of every table in the database into DIR (one ID.json each) and stop.")
@guarded
def serve(port: int, host: str, allow_hosts: tuple[str, ...], db: str | None, export: str | None) -> None:
    """Play any of the games in a browser (Quaternity, classic Quartets, Quarto, Quantum Go Fish), against the agents or with friends.

    Starts a local web server; open http://HOST:PORT/ . Set up a game (its
    options and size), choose which seats people play (each gets its
    own join link) and an agent for every other seat, then play by clicking;
    the knowledge grid beside the table shows who may hold each card (in
    classic, only what that seat may know), exact probabilities on demand and
    why a card is forced. Undo, new game and a downloadable record (it passes
    `quaternity check`). Every table is kept in a database (--db): a table
    untouched for 2 hours is put away from memory and comes back with its next
    request, and a restarted server carries on where it stopped. The server
    answers only to its own addresses (and --allow-host names) and to its own
    pages. Needs the web extra: from a checkout, pip install ".[web]". Stop it
    with Ctrl-C.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    from quaternity_cp.web.app import WILDCARDS, Settings, listen, machine_names
    from quaternity_cp.web.app import serve as run
    from quaternity_cp.web.guard import Hosts

    from quaternity_cp.web.store import Store, default_path
    from quaternity_cp.web.tables import export_records

    try:
        Hosts(allow_hosts)
    except ValueError as err:
        raise InputError(f"--allow-host: {err}") from None
    if db == "":
        raise InputError("--db: an empty path (give a file, or ':memory:')")
    if export == "":
        raise InputError("--export: an empty path (give a folder)")
    if export is not None and os.path.exists(export) and not os.path.isdir(export):
        raise InputError(f"--export: {export} is not a folder")
    path = db if db is not None else default_path()
    store = Store(path)  # not ours, newer or damaged: one line, exit 2, the file untouched
    if export is not None:
        written = export_records(store, export)
        click.echo(f"{len(written)} record{'s' if len(written) != 1 else ''} of {store.count()} tables written "
                   f"to {export}")
        return
    sock = listen(host, port)  # a busy port or a bad host: one line, exit 2, before the banner
    shown = machine_names()[0] if host in WILDCARDS and machine_names() else host
    shown = f"[{shown}]" if ":" in shown else shown
    everywhere = " (every address of this machine)" if host in WILDCARDS else ""
    click.echo(f"Quaternity table on http://{shown}:{port}/{everywhere}  (Ctrl-C stops it)")
    kept = "in memory only (gone when the server stops)" if store.memory else f"in {path}"
    click.echo(f"Tables kept {kept}: {store.count()} so far")
    run(sock, host, Settings(allow_hosts=allow_hosts), store)
