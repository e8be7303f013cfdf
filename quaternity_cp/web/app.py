"""``quaternity serve``: the web table (Starlette on uvicorn), with the page's files served from the package.

Needs the ``[web]`` extra (Starlette and uvicorn; from a checkout: ``pip
install ".[web]"``). The page is plain HTML, CSS and JavaScript
(``static/``); nothing is fetched from the internet. The JavaScript only draws
what the JSON API returns and sends the person's choices back: every rule,
every legal move and every fact shown comes from the library, through
:mod:`quaternity_cp.web.session`. No game is known here by name.

The JSON API (documented in ``docs/web-api.md``): ``GET /api/games``; ``POST
/api/new``; per table ``GET /api/view/{id}``, ``POST /api/act/{id}``, ``POST
/api/undo/{id}``, ``GET /api/record/{id}``, ``GET /api/explain/{id}``, ``GET
/api/solve/{id}`` and ``GET /api/events/{id}`` (server-sent events), each with
the seat's token (``?token=`` or the header ``X-Seat-Token``); the page at
``/``, ``/t/{id}/{token}`` and ``/t/{id}``; the shared page files at
``/static/{file}``; each game's page parts (its rules page, the script that
draws its table, its style: the game's ``page`` part, files in its own
package) at ``/games/{game}/{file}``, only the files the game declares. Errors
are ``{"error": message}`` with 400, 403, 404, 408, 410, 413, 421, 422 or 503;
a fault of the server's own is logged and answered 500 with no details.

What keeps it safe (:class:`Settings`): the tables, their worker pool and time
budgets (:mod:`.tables`: a closed table's pending work is cancelled); the
budget of an agent's move (``agent_seconds``, see
:class:`~quaternity_cp.web.session.WebGame`); request bodies capped and read
with a timeout; the event streams of a table capped, counted as they open; any
file name the server does not have a 404; the ``Host``, ``Origin`` (and its
scheme) and ``Sec-Fetch-Site`` checks and the header timeout (:mod:`.guard`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import socket
from dataclasses import dataclass, replace
from importlib.resources import files
from typing import Any

from ..errors import QuaternityError
from ..registry import DEFAULT_GAME
from ..jsonio import InputRefused, decode_input, load_json, show
from .guard import Guard, Hosts, header_timeout_protocol
from .session import WATCH, WebError, WebGame, catalogue, page_file, page_files, web_games
from .store import Store, StoreUnavailable
from .tables import SERVER_FAULT, NoTable, Table, TableBusy, Tables, duration, new_key, render, snapshot

log = logging.getLogger("quaternity_cp.web")


@dataclass(frozen=True)
class Settings:
    """The limits of one server (the defaults are ``quaternity serve``'s)."""

    idle_seconds: float = 7200.0  #: a table untouched this long is closed
    max_tables: int = 64  #: open tables at most (a new one closes the longest-idle)
    workers: int = 4  #: threads that compute (views, moves, agents, explanations, the solver)
    request_seconds: float = 60.0  #: the most a request waits for its table and its answer (then 503)
    act_seconds: float = 1.0  #: how long a move waits for the agents' replies before answering "thinking"
    #: the budget of one agent's move (see :class:`~quaternity_cp.web.session.WebGame`; None: none)
    agent_seconds: float | None = 2.0
    max_body: int = 64 * 1024  #: bytes of a request body (then 413)
    body_seconds: float = 10.0  #: the most a request body may take to arrive (then 408)
    header_seconds: float = 10.0  #: the most a request head may take to arrive (then the connection is closed)
    max_connections: int = 256  #: open connections at most (then uvicorn answers 503)
    max_streams: int = 16  #: event streams per table (its players' pages)
    max_watchers: int = 32  #: event streams per table opened through its watch link
    ping_seconds: float = 15.0  #: a comment on a quiet event stream this often (finds dead connections)
    allow_hosts: tuple[str, ...] = ()  #: names the server answers to besides its own addresses (see guard)


class Refused(Exception):
    """A request refused before it reaches a table: ``status`` and a message in the person's words."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# -- reading requests -----------------------------------------------------------------------------
async def read_json(request, settings: Settings, *, required: bool = False) -> dict[str, Any]:
    """The request's body as a JSON object (empty: ``{}``, unless ``required``), read within the size and time
    limits."""
    from starlette.requests import ClientDisconnect

    limit = settings.max_body
    too_large = Refused(f"the request is larger than {limit:,} bytes, the most this server reads", 413)
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise Refused("the request's Content-Length is not a number")
        if len(length) > 12 or int(length) > limit:
            raise too_large
    chunks, size = [], 0
    try:
        async with asyncio.timeout(settings.body_seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise Refused(f"the request's body did not arrive within {duration(settings.body_seconds)}", 408) from None
    except ClientDisconnect:
        raise Refused("the request was cut off") from None
    data = b"".join(chunks)
    if not data.strip():
        if required:
            raise Refused("the request has no body: send a JSON object ({} for a table with every default)")
        return {}
    try:
        value = load_json(decode_input(data))
    except InputRefused as err:
        raise Refused(f"the request is not valid JSON: {err}") from None
    if not isinstance(value, dict):
        raise Refused("the request must be a JSON object")
    return value


def known_fields(data: dict[str, Any], *names: str) -> None:
    """Refuse a field that is not one of ``names``."""
    for key in data:
        if key not in names:
            raise Refused(f"unknown field {show(key)} (known: {', '.join(names)})")


def text_field(data: dict[str, Any], name: str, default: str | None = None, *, limit: int = 200) -> str:
    """A string field (``default`` when absent or null; required when no default)."""
    value = data.get(name)
    if value is None:
        if default is None:
            raise Refused(f"the field {name} is missing")
        return default
    if not isinstance(value, str):
        raise Refused(f"{name} must be a string, not {show(value)}")
    if len(value) > limit:
        raise Refused(f"{name} is longer than {limit} characters")
    return value


def whole(value: Any, name: str, low: int = 0, high: int = 2**63 - 1) -> int:
    """An integer (never a bool or a float) from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"{name} must be a whole number, not {show(value)}")
    if not low <= value <= high:
        raise Refused(f"{name} must be from {low} to {high}, not {value}")
    return value


def flag(data: dict[str, Any], name: str) -> bool:
    """A true/false field (false when absent or null)."""
    value = data.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise Refused(f"{name} must be true or false, not {show(value)}")
    return value


def query_flag(request, name: str) -> bool:
    """A query parameter ``1``/``true`` or ``0``/``false`` (false when absent)."""
    value = request.query_params.get(name, "")
    if value in ("1", "true"):
        return True
    if value in ("", "0", "false"):
        return False
    raise Refused(f"{name} must be 1 or 0, not {show(value)}")


def seat_number(text: str, name: str = "seat") -> int:
    """A seat written in the digits 0-9."""
    if not (text.isascii() and text.isdigit() and len(text) <= 4):
        raise Refused(f"{name} must be a seat number, not {show(text)}")
    return int(text)


def new_game_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """The arguments of :meth:`WebGame.new` from ``POST /api/new``'s body, every field's type checked."""
    known_fields(data, "game", "options", "human", "humans", "agents", "seed")
    out: dict[str, Any] = {"game": text_field(data, "game", DEFAULT_GAME, limit=100)}
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise Refused(f"options must be an object of option names and values, not {show(options)}")
    out["options"] = options or {}
    human = whole(data.get("human", 0), "human", 0, 999)
    humans = data.get("humans")
    if humans is not None:
        if not isinstance(humans, list) or not humans or len(humans) > 64:
            raise Refused(f"humans must be a list of seat numbers, not {show(humans)}")
        out["humans"] = [whole(seat, "a seat in humans", 0, 999) for seat in humans]
        if "human" in data and human != out["humans"][0]:
            raise Refused("human, when given with humans, must be its first seat (the creator's)")
    else:
        out["human"] = human
    agents = {} if data.get("agents") is None else data["agents"]
    if not isinstance(agents, dict):
        raise Refused(f'agents must be an object of seats and agent names, like {{"1": "random"}}, not {show(agents)}')
    out["agents"] = {}
    for seat in agents:
        number = seat_number(seat, "a seat in agents")
        if number in out["agents"]:  # "1" and "01": one seat given twice, one choice would be dropped
            raise Refused(f"agents: seat {number} is given twice")
        out["agents"][number] = text_field(agents, seat, "", limit=100)  # "": the default
    seed = data.get("seed")
    out["seed"] = None if seed is None else whole(seed, "seed")
    return out


# -- the application ------------------------------------------------------------------------------
def create_app(settings: Settings | None = None, store: Store | None = None):
    """The ASGI application: the Starlette routes behind the ``Host``/``Origin`` guard."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    settings = settings or Settings()
    static = files("quaternity_cp") / "web" / "static"
    tables = Tables(workers=settings.workers, max_tables=settings.max_tables, idle_seconds=settings.idle_seconds,
                    request_seconds=settings.request_seconds, store=store, agent_seconds=settings.agent_seconds)
    known: dict[str, Any] = {}  # the catalogue, computed once

    class EventStream(StreamingResponse):
        """A table's event stream, counted in ``table.streams`` from its opening (:func:`events`) until the
        answer ends however it ends (the client gone before the first byte included)."""

        def __init__(self, content, table: Table, watching: bool = False):
            super().__init__(content, media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
            self.table = table
            self.watching = watching

        async def __call__(self, scope, receive, send) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                if self.watching:
                    self.table.watching -= 1
                else:
                    self.table.streams -= 1

    def error(message: str, status: int) -> JSONResponse:
        headers = {"Connection": "close"} if status in (408, 413) else None  # a body may be left unread
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    def endpoint(func):
        async def wrapped(request: Request):
            try:
                return await func(request)
            except Refused as err:
                return error(str(err), err.status)
            except NoTable as err:
                return error(str(err), err.status)
            except (TableBusy, StoreUnavailable) as err:
                return error(str(err), 503)
            except QuaternityError as err:  # WebError and the library's own refusals: in the person's words
                return error(str(err), 422)
            except Exception:  # a fault of the server's: logged, not shown
                log.exception("%s %s failed", request.method, request.url.path)
                return error(SERVER_FAULT, 500)
        return wrapped

    async def locate(request: Request) -> tuple[Table, int]:
        """The table of the path (loaded from the database when it is not in memory) and the seat of the
        request's token."""
        key = request.path_params["gid"]
        if len(key) > 64:
            raise NoTable("no such table", 404)
        table = await tables.get(key)
        token = request.headers.get("x-seat-token") or request.query_params.get("token") or ""
        game = table.game
        if not token:
            if len(game.humans) == 1:
                return table, game.humans[0]
            raise Refused("this table has several players: open it through your seat's link", 403)
        seat = game.seat_of(token) if token.isascii() and len(token) <= 100 else None
        if seat is None:
            raise Refused("this seat link is not valid for this table (check that it was copied whole)", 403)
        return table, seat

    async def player(request: Request) -> tuple[Table, int]:
        """:func:`locate` for a request only a seat may make (a move, an undo, play again, the explanations
        and the verdict): a watch link is refused."""
        table, seat = await locate(request)
        if seat == WATCH:
            raise Refused("a watch link only watches: it cannot move, undo, start a game or ask the solver", 403)
        return table, seat

    def answer(table: Table, view: dict[str, Any], **extra: Any) -> JSONResponse:
        data = {**extra, **view, "thinking": table.thinking}
        if table.error is not None:
            data["agent_error"] = table.error
        return JSONResponse(data)

    async def current_view(table: Table, seat: int, probabilities: bool) -> dict[str, Any]:
        table.probabilities[seat] = probabilities
        view = table.cached(seat, probabilities)
        if view is None:
            view = await tables.run(table, lambda: table.render(seat, probabilities))
        return view

    async def move(request: Request, fields: tuple[str, ...], parse, *, undo: bool = False) -> JSONResponse:
        """A person's move or undo (``parse(body)`` gives it as ``play(game, seat)``), then the agents' replies
        awaited up to ``act_seconds``. A move while an agent thinks is refused at once (it is not the
        person's turn); an undo waits for the agent's move, then takes it back."""
        data = await read_json(request, settings)
        known_fields(data, *fields)
        probabilities = flag(data, "probabilities")
        play = parse(data)
        table, seat = await player(request)
        if not undo and table.thinking is not None:
            raise Refused(f"it is not your turn: {table.game.spec.seat_label} {table.thinking} is thinking", 422)
        table.probabilities[seat] = probabilities
        table.error = None  # the agents try again after a person's move

        def job() -> dict[str, Any]:
            play(table.game, seat)
            table.refresh()
            return table.current(seat, probabilities)

        view = await tables.run(table, job)
        if table.runner is not None:
            await tables.settle(table, settings.act_seconds)
            view = await current_view(table, seat, probabilities)
        return answer(table, view)

    # -- routes ------------------------------------------------------------------------------
    def page() -> Response:
        return Response((static / "index.html").read_bytes(), media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store"})

    async def index(request: Request):
        return page()

    kinds = {".js": "text/javascript", ".css": "text/css", ".html": "text/html; charset=utf-8",
             ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon"}

    def plain_name(name: str, limit: int = 100) -> bool:
        """A file name the server may look up: short, ASCII, one of the kinds, no folder, nothing hidden."""
        suffix = name[name.rfind("."):] if "." in name else ""
        return not (len(name) > limit or suffix not in kinds or "/" in name or "\\" in name or name.startswith(".")
                    or not name.isascii() or "\x00" in name)

    def serve_file(item, name: str) -> Response:
        """The file ``item`` (a package resource), or a 404 when it is not there."""
        try:
            if item is None or not item.is_file():
                return error("no such file", 404)
            data = item.read_bytes()
        except (OSError, ValueError):  # a name the file system refuses
            return error("no such file", 404)
        return Response(data, media_type=kinds[name[name.rfind("."):]])

    def game_of(name: str):
        """The registered game called ``name``, or None (a name no game has, or too long to be one)."""
        if len(name) > 40 or not name.isascii():
            return None
        return web_games().get(name)

    def game_rules(game: str) -> Response:
        spec = game_of(game)
        rules_page = page_files(spec).get("rules") if spec is not None else None
        if rules_page is None:
            return error("no rules page for that game", 404)
        return serve_file(page_file(spec, rules_page), rules_page)

    async def asset(request: Request):
        name = request.path_params["name"]
        if not plain_name(name):
            return error("no such file", 404)
        if name.startswith("rules-") and name.endswith(".html") and not (static / name).is_file():
            return game_rules(name[len("rules-"):-len(".html")])  # the rules pages' former addresses
        return serve_file(static / name, name)

    async def game_part(request: Request):
        """``/games/{game}/{name}``: a file of the game's page parts, only one the game declares (its ``page``
        part), from its own package."""
        game, name = request.path_params["game"], request.path_params["name"]
        spec = game_of(game)
        if spec is None or not plain_name(name, 60):
            return error("no such file", 404)
        return serve_file(page_file(spec, name), name)

    async def rules(request: Request):
        return game_rules(request.path_params["game"])

    async def list_games(request: Request):
        if not known:
            known.update(await tables.compute(catalogue, "the list of games took too long"))
        return JSONResponse(known)

    async def new(request: Request):
        args = new_game_arguments(await read_json(request, settings, required=True))
        key = new_key()

        def job():
            game = WebGame.new(advance=False, agent_seconds=settings.agent_seconds, **args)
            tables.keep(game, key)  # its seats' tokens, and its row in the database
            views = {(seat, False): (game.version, render(game, key, seat, False)) for seat in game.humans}
            return game, snapshot(game), views

        game, state, views = await tables.compute(job, "setting up the table took too long: try a smaller one")
        table = tables.add(game, key, state, views)
        seat = game.humans[0]
        if table.runner is not None:
            await tables.settle(table, settings.act_seconds)
        view = await current_view(table, seat, False)
        return answer(table, view, seat=seat, token=game.tokens[seat])

    async def again(request: Request):
        """Play again at a finished table: the new table's view for the asking seat, with its token and, for
        the creator, the join links (every other page of the old table hears of it by its events)."""
        known_fields(await read_json(request, settings), "probabilities")
        table, seat = await player(request)
        new_table = await tables.again(table)
        if new_table.runner is not None:
            await tables.settle(new_table, settings.act_seconds)
        view = await current_view(new_table, seat, False)
        return answer(new_table, view, seat=seat, token=new_table.game.tokens[seat])

    async def view(request: Request):
        table, seat = await locate(request)
        return answer(table, await current_view(table, seat, query_flag(request, "probabilities")))

    async def act(request: Request):
        def parse(data: dict[str, Any]):
            action = text_field(data, "action", limit=1000)
            return lambda game, seat: game.act(action, seat)

        return await move(request, ("action", "probabilities"), parse)

    async def undo(request: Request):
        return await move(request, ("probabilities",), lambda data: lambda game, seat: game.undo(seat), undo=True)

    async def record(request: Request):
        table, seat = await locate(request)
        game = table.game
        text = await tables.run(table, lambda: json.dumps(game.record(seat), indent=2) + "\n")
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{game.game}-game.json"'})

    async def explain(request: Request):
        table, viewer = await player(request)
        q = request.query_params
        card, set_name, seat = q.get("card"), q.get("set"), q.get("seat")
        for name, value in (("card", card), ("set", set_name)):
            if value is not None and len(value) > 40:
                raise Refused(f"{name} is longer than 40 characters")
        number = None if seat in (None, "") else seat_number(seat)
        lines = await tables.run(table, lambda: table.game.explain(viewer, card=card, set_name=set_name, seat=number))
        return JSONResponse({"lines": list(lines)})

    async def solve(request: Request):
        table, seat = await player(request)
        return JSONResponse(await tables.run(table, lambda: table.game.verdict(seat)))

    async def events(request: Request):
        table, seat = await locate(request)
        watching = seat == WATCH
        if watching and table.watching >= settings.max_watchers:
            raise Refused(f"this table already has {settings.max_watchers} watchers: try again later", 503)
        if not watching and table.streams >= settings.max_streams:
            raise Refused(f"this table already has {settings.max_streams} open pages: close one", 503)
        # counted at once, with no await between the check and the count: concurrent openings see each other
        if watching:
            table.watching += 1
        else:
            table.streams += 1

        async def stream():
            last = None
            while True:
                changed = table.changed
                if table.evicted:  # put away (it is in the database): the browser reconnects and loads it
                    return
                if table.closed is not None:
                    yield f"event: closed\ndata: {json.dumps({'error': table.closed})}\n\n"
                    return
                status = table.status()
                if status != last:
                    yield f"data: {json.dumps(status)}\n\n"
                    last = status
                try:
                    await asyncio.wait_for(changed.wait(), settings.ping_seconds)
                except TimeoutError:
                    yield ": ping\n\n"

        return EventStream(stream(), table, watching)

    async def table_page(request: Request):
        if len(request.path_params["gid"]) > 64:
            return error("no such table", 404)
        return page()

    async def not_found(request: Request, exc: Exception):
        status = getattr(exc, "status_code", 404)
        messages = {404: "no such address", 405: "this address does not take that method"}
        return error(messages.get(status, "the request is not one this server understands"), status)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        sweeper = asyncio.get_running_loop().create_task(tables.sweeper())
        resuming = asyncio.get_running_loop().create_task(tables.resume())  # agents to move move again
        try:
            yield
        finally:
            resuming.cancel()
            sweeper.cancel()
            tables.stop()

    routes = [
        Route("/", index),
        Route("/t/{gid}", table_page),
        Route("/t/{gid}/{token}", table_page),
        Route("/static/{name}", asset),
        Route("/rules/{game}", rules),
        Route("/games/{game}/{name}", game_part),
        Route("/api/games", endpoint(list_games)),
        Route("/api/new", endpoint(new), methods=["POST"]),
        Route("/api/view/{gid}", endpoint(view)),
        Route("/api/act/{gid}", endpoint(act), methods=["POST"]),
        Route("/api/undo/{gid}", endpoint(undo), methods=["POST"]),
        Route("/api/again/{gid}", endpoint(again), methods=["POST"]),
        Route("/api/record/{gid}", endpoint(record)),
        Route("/api/explain/{gid}", endpoint(explain)),
        Route("/api/solve/{gid}", endpoint(solve)),
        Route("/api/events/{gid}", endpoint(events)),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: not_found})
    app.state.tables = tables  # the open tables (for the tests: ``create_app(...).app.state.tables``)
    return Guard(app, Hosts(settings.allow_hosts))


# -- serving ----------------------------------------------------------------------------------------
WILDCARDS = ("0.0.0.0", "::", "")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, before anything is printed; :class:`WebError` in plain words if it cannot be."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        raise WebError(f"cannot listen on {host!r}: not an address or a known name of this machine") from None
    family, kind, proto, _, address = next((i for i in infos if i[0] == socket.AF_INET), infos[0])
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)  # connections wait in the queue from now on (the banner is true), until uvicorn takes them
    except OSError as err:
        sock.close()
        reasons = {errno.EADDRINUSE: "the port is in use (another server?): choose another with --port",
                   errno.EACCES: "permission denied: ports below 1024 need privileges, choose another with --port",
                   errno.EADDRNOTAVAIL: "that address is not one of this machine's"}
        reason = reasons.get(err.errno or 0, err.strerror or "refused by the system")
        raise WebError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def machine_names() -> tuple[str, ...]:
    """This machine's names, its host name first (for a server listening on every address)."""
    return tuple(dict.fromkeys(n for n in (socket.gethostname(), socket.getfqdn()) if n))


def server(app, settings: Settings):
    """A uvicorn server for ``app`` with the limits of ``settings`` (h11, with the header timeout)."""
    import uvicorn

    config = uvicorn.Config(app, http=header_timeout_protocol(settings.header_seconds), ws="none", lifespan="on",
                            log_level="warning", timeout_keep_alive=5, limit_concurrency=settings.max_connections,
                            timeout_graceful_shutdown=1, proxy_headers=False, server_header=False,
                            h11_max_incomplete_event_size=16 * 1024)
    return uvicorn.Server(config)


def serve(sock: socket.socket, host: str, settings: Settings | None = None, store: Store | None = None) -> None:
    """Serve the web table on a socket bound to ``host`` (:func:`listen`) until interrupted.

    Besides its own addresses and ``settings.allow_hosts``, the server answers
    to ``host``; bound to every address (``0.0.0.0``, ``::``), to the machine's
    names (:func:`machine_names`).
    """
    settings = settings or Settings()
    extra = machine_names() if host in WILDCARDS else (host,)
    settings = replace(settings, allow_hosts=(*settings.allow_hosts, *extra))
    server(create_app(settings, store), settings).run(sockets=[sock])


__all__ = ["Settings", "create_app", "listen", "serve", "server", "machine_names", "WILDCARDS", "read_json",
           "new_game_arguments", "Refused"]
