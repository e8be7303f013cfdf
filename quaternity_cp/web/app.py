"""``quaternity serve``: the local web table (Starlette), with the page's files served from the package.

Needs the ``[web]`` extra (``pip install "quaternity-cp[web]"``). The page is
plain HTML, CSS and JavaScript (``static/``); nothing is fetched from the
internet. The JavaScript only draws what the JSON API returns and sends the
person's choices back: every rule, every legal move and every fact shown comes
from the library, through :mod:`quaternity_cp.web.session`.

API (JSON): ``GET /api/games`` (each game's metadata: seats, options, presets, agents); ``POST /api/new``
``{"game", "options", "human", "agents": {seat: name}, "seed"}``;
``GET /api/view/{id}?probabilities=1``; ``POST /api/act/{id}`` ``{"action"}``;
``POST /api/undo/{id}``; ``GET /api/record/{id}`` (a download that
``quaternity check`` / ``quaternity quarto check`` accepts);
``GET /api/explain/{id}?card=A0&seat=1`` or ``?set=B`` and ``GET /api/solve/{id}``
(for games whose web view offers them: the view's ``features``). Errors are
``{"error": message}`` with status 400 or 404. No game is known here by name.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from importlib.resources import files
from typing import Any

from ..errors import QuaternityError
from ..games import DEFAULT_GAME
from .session import WebError, WebGame, catalogue

MAX_GAMES = 64  # games kept in memory (the oldest is dropped)


def create_app():
    """The Starlette application."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    static = files("quaternity_cp") / "web" / "static"
    games: "OrderedDict[str, WebGame]" = OrderedDict()
    lock = threading.Lock()  # agents and engines are not shared between requests at once
    counter = [0]

    def error(message: str, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    def table_of(request: Request) -> WebGame:
        key = request.path_params["gid"]
        if key not in games:
            raise LookupError(key)
        return games[key]

    def handler(func):
        async def wrapped(request: Request):
            try:
                with lock:
                    return await func(request)
            except LookupError:
                return error("no such game (the server was restarted?): start a new one", 404)
            except (WebError, QuaternityError, ValueError, TypeError) as err:
                return error(str(err))
            except Exception as err:  # a bug: say so on the page instead of a bare 500
                return error(f"internal error: {type(err).__name__}: {err}", 500)
        return wrapped

    async def index(request: Request):
        return HTMLResponse((static / "index.html").read_text(encoding="utf-8"))

    async def asset(request: Request):
        name = request.path_params["name"]
        kinds = {".js": "text/javascript", ".css": "text/css"}
        suffix = name[name.rfind("."):] if "." in name else ""
        if suffix not in kinds or "/" in name or name.startswith("."):
            return Response("not found", status_code=404)
        item = static / name
        if not item.is_file():
            return Response("not found", status_code=404)
        return Response(item.read_text(encoding="utf-8"), media_type=kinds[suffix])

    async def list_games(request: Request):
        return JSONResponse(catalogue())

    async def body(request: Request) -> dict[str, Any]:
        try:
            data = json.loads(await request.body() or b"{}")
        except ValueError:
            raise WebError("the request is not JSON") from None
        if not isinstance(data, dict):
            raise WebError("the request must be a JSON object")
        return data

    async def new(request: Request):
        data = await body(request)
        table = WebGame.new(str(data.get("game", DEFAULT_GAME)), data.get("options") or {},
                            human=int(data.get("human", 0)), agents=data.get("agents") or {},
                            seed=data.get("seed"))
        counter[0] += 1
        key = f"g{counter[0]}"
        games[key] = table
        while len(games) > MAX_GAMES:
            games.popitem(last=False)
        return JSONResponse({"id": key, **table.view()})

    async def view(request: Request):
        table = table_of(request)
        return JSONResponse(table.view(probabilities=request.query_params.get("probabilities") == "1"))

    async def act(request: Request):
        table = table_of(request)
        data = await body(request)
        table.act(str(data.get("action", "")))
        return JSONResponse(table.view(probabilities=bool(data.get("probabilities"))))

    async def undo(request: Request):
        table = table_of(request)
        data = await body(request)
        table.undo()
        return JSONResponse(table.view(probabilities=bool(data.get("probabilities"))))

    async def record(request: Request):
        table = table_of(request)
        name = f"{table.game}-game.json"
        return Response(json.dumps(table.record(), indent=2) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def explain(request: Request):
        table = table_of(request)
        q = request.query_params
        seat = q.get("seat")
        lines = table.explain(card=q.get("card"), set_name=q.get("set"), seat=None if seat in (None, "") else int(seat))
        return JSONResponse({"lines": lines})

    async def solve(request: Request):
        return JSONResponse(table_of(request).verdict())

    routes = [
        Route("/", index),
        Route("/static/{name}", asset),
        Route("/api/games", handler(list_games)),
        Route("/api/new", handler(new), methods=["POST"]),
        Route("/api/view/{gid}", handler(view)),
        Route("/api/act/{gid}", handler(act), methods=["POST"]),
        Route("/api/undo/{gid}", handler(undo), methods=["POST"]),
        Route("/api/record/{gid}", handler(record)),
        Route("/api/explain/{gid}", handler(explain)),
        Route("/api/solve/{gid}", handler(solve)),
    ]
    return Starlette(routes=routes)


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the web table until interrupted."""
    import uvicorn

    uvicorn.run(create_app(), host=host, port=port, log_level="warning")


__all__ = ["create_app", "serve"]
