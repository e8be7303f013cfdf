"""The web server under attack: a real uvicorn server on a free local port, in a thread of this process.

Slow and big bodies, half-sent headers, other pages (Origin) and other names
(Host, DNS rebinding), bad JSON, unknown tables, wrong seat tokens, idle
tables, requests while an agent thinks. A request's time is measured only as
a liveness check (``GET /`` must answer within a second while something else
is slow, where a server that froze would never answer); every wait has a
safety net far above the expected time.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time

import pytest
from click.testing import CliRunner

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")

from quaternity_cli.main import main  # noqa: E402
from quaternity_cp.registry import load_all  # noqa: E402
from quaternity_cp.web.app import Settings, create_app, listen, server  # noqa: E402

SAFETY = 60.0  # seconds: a net for a hung server, far above any expected wait
LIVELY = 1.0  # seconds: GET / must answer within this while another request is slow (it takes milliseconds)
SMALL = {"players": 2, "sets": 2, "set_size": 2}
FAST = dict(header_seconds=1.0, body_seconds=1.0, act_seconds=SAFETY)


class Live:
    """A running server: raw sockets and JSON requests with any headers."""

    def __init__(self, port: int, tables=None):
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.tables = tables  # the server's open tables (quaternity_cp.web.tables.Tables)

    def connect(self) -> socket.socket:
        conn = socket.create_connection(("127.0.0.1", self.port), timeout=SAFETY)
        return conn

    def request(self, method: str, path: str, body: bytes | dict | None = None, headers: dict | None = None,
                ) -> tuple[int, dict, http.client.HTTPResponse]:
        """(status, JSON body or {}, the response) of one request on a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=SAFETY)
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        sent = {"Host": self.host, **(headers or {})}
        if data is not None:
            sent.setdefault("Content-Length", str(len(data)))
            sent.setdefault("Content-Type", "application/json")
        for key, value in sent.items():
            conn.putheader(key, value)
        conn.endheaders(data)
        res = conn.getresponse()
        raw = res.read()
        conn.close()
        is_json = res.getheader("content-type", "").startswith("application/json")
        return res.status, (json.loads(raw) if is_json and raw else {}), res

    def get(self, path: str, **headers: str) -> tuple[int, dict]:
        status, data, _ = self.request("GET", path, headers=headers)
        return status, data

    def post(self, path: str, body: bytes | dict | None = None, **headers: str) -> tuple[int, dict]:
        status, data, _ = self.request("POST", path, body if body is not None else {}, headers=headers)
        return status, data

    def lively(self) -> float:
        """Seconds ``GET /`` took (asserting it answered the page)."""
        start = time.monotonic()
        status, _, res = self.request("GET", "/")
        assert status == 200 and res.getheader("content-type", "").startswith("text/html")
        return time.monotonic() - start

    @contextlib.contextmanager
    def events(self, path: str):
        """An open event stream (closed after the block)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=SAFETY)
        try:
            conn.request("GET", path, headers={"Host": self.host})
            res = conn.getresponse()
            assert res.status == 200 and (res.getheader("content-type") or "").startswith("text/event-stream")
            yield res
        finally:
            conn.close()


def next_event(stream: http.client.HTTPResponse) -> tuple[str, dict]:
    """(event name, data) of the next event of a stream (pings skipped)."""
    name, data = "message", None
    while True:
        line = stream.readline().decode()
        assert line, "the event stream ended"
        line = line.rstrip("\r\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif not line and data is not None:
            return name, data


@contextlib.contextmanager
def running(**overrides):
    """The app under uvicorn (the server ``quaternity serve`` runs) on a free port, in a thread."""
    settings = Settings(**{**FAST, **overrides})
    sock = listen("127.0.0.1", 0)
    app = create_app(settings)
    srv = server(app, settings)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    start = time.monotonic()
    while not srv.started:
        assert thread.is_alive() and time.monotonic() - start < SAFETY, "the server did not start"
        time.sleep(0.01)
    try:
        yield Live(sock.getsockname()[1], app.app.state.tables)
    finally:
        srv.should_exit = True
        thread.join(SAFETY)


@pytest.fixture(scope="module")
def live():
    with running() as server_:
        yield server_


def new_table(live: Live, **body) -> dict:
    status, data = live.post("/api/new", {"seed": 1, "options": SMALL, **body})
    assert status == 200, data
    return data


def closed_by_server(conn: socket.socket) -> bytes:
    """What the server sent before closing the connection (waits at most SAFETY)."""
    out = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return out
        out += chunk


# -- slow clients ------------------------------------------------------------------------------
def test_a_slow_body_holds_nobody(live):
    """Content-Length 20 and 5 bytes: other requests go on, during and after (it once froze the server)."""
    slow = live.connect()
    slow.sendall(f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nContent-Length: 20\r\n\r\n{{\"se".encode())
    try:
        for _ in range(3):
            assert live.lively() < LIVELY
        assert new_table(live)["id"]
        answer = closed_by_server(slow)  # the body never comes: 408 after body_seconds, then closed
        assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1 second" in answer
    finally:
        slow.close()
    assert live.lively() < LIVELY


def test_half_sent_headers_are_closed(live):
    """A request head that never ends, or no request at all, is not held open (header_seconds: 1 here)."""
    half = live.connect()
    half.sendall(f"GET / HTTP/1.1\r\nHost: {live.host}\r\nX-Slow: ".encode())
    silent = live.connect()
    for _ in range(3):
        assert live.lively() < LIVELY
    assert closed_by_server(half) == b"" and closed_by_server(silent) == b""
    half.close()
    silent.close()


def test_big_bodies_are_refused_unread(live):
    """413 from the Content-Length alone, the rest never read; a chunked body is cut at the limit."""
    conn = live.connect()
    conn.sendall(f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nContent-Length: 100000000\r\n\r\n".encode()
                 + b"[" * 10_000)
    answer = closed_by_server(conn)
    assert answer.startswith(b"HTTP/1.1 413") and b"larger than 65,536 bytes" in answer
    conn.close()
    conn = live.connect()
    chunk = b"[" * 40_000  # two of them pass the limit; the body never ends
    conn.sendall(f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
                 + (f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n") * 2)
    answer = closed_by_server(conn)
    assert answer.startswith(b"HTTP/1.1 413")
    conn.close()
    assert live.lively() < LIVELY


# -- other pages, other names ----------------------------------------------------------------------
def test_other_pages_cannot_drive_it(live):
    """A cross-origin POST (text/plain, as a form could send) is refused; the server's own pages are not."""
    body = json.dumps({"seed": 1, "options": SMALL}).encode()
    status, data, _ = live.request("POST", "/api/new", body, {"Origin": "http://evil.example",
                                                                "Content-Type": "text/plain"})
    assert status == 403 and "other pages" in data["error"]
    assert live.post("/api/new", body, Origin="null")[0] == 403
    assert live.get("/api/games", **{"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert live.post("/api/new", body, Origin=f"http://{live.host}")[0] == 200
    assert live.post("/api/new", body, Origin=f"http://localhost:{live.port}")[0] == 200
    assert live.post("/api/new", body, Origin=f"http://127.0.0.1:{live.port + 1}")[0] == 403
    # a join link opened from a chat (a cross-site navigation) still gets the page
    gid = new_table(live)["id"]
    assert live.get(f"/t/{gid}", **{"Sec-Fetch-Site": "cross-site"})[0] == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:{other}", "127.0.0.2:{port}",
                                  "[::2]:{port}", "127.0.0.1:x"])
def test_other_names_are_refused(live, host):
    """DNS rebinding: a page whose name resolves to this machine names itself in Host (421; an empty Host is a
    malformed request, 400: tests/test_web_protocol.py)."""
    value = host.format(port=live.port, other=live.port + 1)
    for method, path in (("GET", "/"), ("GET", "/api/games"), ("POST", "/api/new")):
        status, data, _ = live.request(method, path, {} if method == "POST" else None, {"Host": value})
        assert status == 421 and "does not answer to the name" in data["error"], (value, path, status)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_its_own_names_are_served(live, host):
    assert live.get("/api/games", Host=host.format(port=live.port))[0] == 200


# -- bad requests: JSON errors in words, never 500 --------------------------------------------------
@pytest.mark.parametrize("body, words", [
    (b'{"seed": Infinity}', "Infinity is not a JSON value"),
    (b'{"seed": NaN}', "NaN is not a JSON value"),
    (b'{"seed": 1e400}', "seed must be a whole number"),
    (b'{"seed": 1.5}', "seed must be a whole number"),
    (b'{"seed": true}', "seed must be a whole number"),
    (b'{"seed": -1}', "seed must be from 0"),
    (b'{"seed": 123456789012345678901234}', "digits"),
    (b'{"agents": "random"}', "agents must be an object"),
    (b'{"agents": {"one": "random"}}', "a seat in agents must be a seat number"),
    (b'{"agents": {"1": 5}}', "must be a string"),
    (b'{"human": "0"}', "human must be a whole number"),
    (b'{"humans": [0, "1"]}', "a seat in humans must be a whole number"),
    (b'{"humans": []}', "humans must be a list"),
    (b'{"human": 1, "humans": [0, 1]}', "must be its first seat"),
    (b'{"options": [1, 2]}', "options must be an object"),
    (b'{"game": 7}', "game must be a string"),
    (b'{"colour": "red"}', 'unknown field "colour"'),
    (b'{"seed": 1, "seed": 2}', "given twice"),
    (b'[1, 2]', "must be a JSON object"),
    (b'{"seed": ', "not valid JSON"),
    (b'\xff\xfe{}', "not UTF-8"),
    (b'[' * 30_000 + b']' * 30_000, "nested more than 20 levels deep"),
])
def test_bad_json_is_a_clean_400(live, body, words):
    status, data = live.post("/api/new", body)
    assert status == 400 and words in data["error"], (status, data)


def test_json_nested_100000_deep_is_refused_unparsed(live):
    assert live.post("/api/new", b"[" * 100_000 + b"]" * 100_000)[0] == 413


@pytest.mark.parametrize("body", [
    {"game": "chess"},
    {"options": {"players": "3"}},
    {"options": {"players": 99}},
    {"human": 7},
    {"agents": {"1": "nobody"}},
    {"agents": {"1": "koole-first"}, "options": {"preset": "quaternity", **SMALL}},  # it plays classic only
])
def test_unacceptable_values_are_a_clean_422(live, body):
    status, data = live.post("/api/new", {"seed": 1, **body})
    assert status == 422 and data["error"] and "Error" not in data["error"], (body, status, data)


def test_bad_moves_and_queries(live):
    table = new_table(live, agents={"1": "random"})
    gid = table["id"]
    for body, status in (({"action": 5}, 400), ({"action": "x" * 2000}, 400), ({}, 400), ({"move": "A0"}, 400),
                         ({"action": "1>0:A0?"}, 422), ({"action": "\x00"}, 422),
                         ({"action": "0>1:A0?", "probabilities": "yes"}, 400)):
        got, data = live.post(f"/api/act/{gid}", body)
        assert got == status and data["error"], (body, got, data)
    for query, status in (("seat=99&card=A0", 422), ("seat=one&card=A0", 400), ("seat=-1&card=A0", 400),
                          ("card=" + "A" * 100, 400)):
        got, data = live.get(f"/api/explain/{gid}?{query}")
        assert got == status and data["error"], (query, got, data)
    assert live.get(f"/api/view/{gid}?probabilities=maybe")[0] == 400
    got, data = live.get("/api/act/x")
    assert got == 405 and data["error"]
    got, data = live.get("/api/nothing")
    assert got == 404 and data["error"]


def test_unknown_and_closed_tables(live):
    for path in ("/api/view/nope", "/api/view/" + "x" * 500, "/api/record/g1", "/api/events/nope"):
        status, data = live.get(path)
        assert status == 404 and "no such table" in data["error"], path
    status, data = live.post("/api/act/g2", {"action": "0>1:A0?"})
    assert status == 404


def test_seat_tokens(live):
    """Several human seats: each acts and sees only through its own link; a wrong or missing token is 403."""
    table = new_table(live, humans=[0, 1], options={"preset": "classic", "players": 2, "sets": 2, "set_size": 2})
    gid, links = table["id"], table["links"]
    assert set(links) == {"0", "1", "watch"} and table["seat"] == 0 and links["0"] == f"/t/{gid}/{table['token']}"
    other = links["1"].rsplit("/", 1)[1]
    assert len(gid) >= 20 and len(other) >= 20 and other != table["token"]
    for headers, path in (({}, f"/api/view/{gid}"), ({}, f"/api/view/{gid}?token=wrong"),
                          ({"X-Seat-Token": "wrong"}, f"/api/view/{gid}"),
                          ({}, f"/api/view/{gid}?token=%C3%A9t%C3%A9"), ({}, f"/api/record/{gid}")):
        status, data = live.get(path, **headers)
        assert status == 403 and data["error"], (path, headers)
    status, view = live.get(f"/api/view/{gid}?token={other}")
    assert status == 200 and view["seat"] == 1 and "links" not in view
    status, mine = live.get(f"/api/view/{gid}", **{"X-Seat-Token": table["token"]})
    assert status == 200 and mine["seat"] == 0 and set(mine["hand"]).isdisjoint(view["hand"])
    assert live.get(f"/t/{gid}/{other}")[0] == 200
    # seat 1 may not play seat 0's turn
    turn = 0 if mine["your_turn"] else 1
    wrong = other if turn == 0 else table["token"]
    status, data = live.post(f"/api/act/{gid}?token={wrong}", {"action": "0>1:A0?" if turn == 0 else "1>0:A0?"})
    assert status == 422, data


# -- liveness while an agent thinks ----------------------------------------------------------------
class Ponder:
    """A test agent that computes (holding the interpreter, as a real agent does) until released."""

    released = threading.Event()
    started = threading.Event()

    def step(self, observation, legal_actions, rng):
        Ponder.started.set()
        deadline = time.monotonic() + SAFETY
        while not Ponder.released.is_set() and time.monotonic() < deadline:
            sum(i * i for i in range(2000))
        return rng.choice(sorted(legal_actions, key=repr))


@pytest.fixture
def ponder(monkeypatch):
    monkeypatch.setitem(load_all()["quartets"].agents, "ponder", Ponder)
    Ponder.released.clear()
    Ponder.started.clear()
    yield Ponder
    Ponder.released.set()


def test_the_server_answers_while_an_agent_thinks(ponder):
    with running(act_seconds=0.2) as srv:
        # seat 0 (the agent) moves first and thinks until released; the table answers at once with "thinking"
        table = new_table(srv, human=1, agents={"0": "ponder"})
        gid = table["id"]
        assert table["thinking"] == 0 and not table["your_turn"]
        with srv.events(f"/api/events/{gid}") as stream:
            assert next_event(stream)[1] == {"version": table["version"], "thinking": 0, "over": False}
            assert ponder.started.wait(SAFETY)
            for _ in range(3):
                assert srv.lively() < LIVELY
            start = time.monotonic()
            status, view = srv.get(f"/api/view/{gid}")  # the view of the current version, without waiting
            assert status == 200 and view["thinking"] == 0 and time.monotonic() - start < LIVELY
            other = new_table(srv, agents={"1": "random"})  # another table plays on
            assert srv.post(f"/api/act/{other['id']}", {"action": "0>1:A0?"})[0] == 200
            status, data = srv.post(f"/api/act/{gid}", {"action": "1>0:A0?"})
            assert status == 422 and "seat 0 is thinking" in data["error"]  # at once, not after the agent
            ponder.released.set()
            name, data = next_event(stream)
            while data["thinking"] is not None:
                name, data = next_event(stream)
            assert name == "message" and data["version"] > table["version"]
        status, view = srv.get(f"/api/view/{gid}")
        assert view["version"] == data["version"] and view["thinking"] is None
        assert view["your_turn"] or view["over"]


def test_a_request_waits_for_its_table_at_most_its_budget(ponder):
    """While an agent thinks, a request that needs the table (an undo, a view not computed yet) answers 503
    after request_seconds, in words; the table goes on once the agent has moved."""
    with running(act_seconds=0.1, request_seconds=0.5) as srv:
        table = new_table(srv, human=1, agents={"0": "ponder"})
        gid = table["id"]
        assert ponder.started.wait(SAFETY)
        for status, data in (srv.get(f"/api/view/{gid}?probabilities=1"), srv.post(f"/api/undo/{gid}")):
            assert status == 503 and "still busy" in data["error"], data
        assert srv.lively() < LIVELY
        ponder.released.set()
        with srv.events(f"/api/events/{gid}") as stream:
            name, data = next_event(stream)
            while data["thinking"] is not None:
                name, data = next_event(stream)
        status, view = srv.get(f"/api/view/{gid}?probabilities=1")
        assert status == 200 and view["version"] == data["version"]


def rest_of_stream(stream) -> bytes:
    """Everything an event stream sends until it ends (SAFETY bounds a stream that never does)."""
    out = b""
    while True:
        line = stream.readline()
        if not line:
            return out
        out += line


def test_idle_tables_are_put_away_and_come_back():
    """A table nobody touches is put away from memory (issue 39: not closed): its event stream ends with no
    "closed" event (a browser reconnects by itself), and its next request loads it again, as it was."""
    with running(idle_seconds=0.3) as srv:
        table = new_table(srv)
        gid = table["id"]
        with srv.events(f"/api/events/{gid}") as stream:
            assert next_event(stream)[0] == "message"
            assert b"event: closed" not in rest_of_stream(stream)  # put away: the stream ends, saying nothing
        assert gid not in srv.tables.open and srv.tables.store.load(gid) is not None
        status, data = srv.get(f"/api/view/{gid}")
        assert status == 200 and {k: v for k, v in data.items() if k != "thinking"} == \
            {k: v for k, v in table.items() if k in data and k != "thinking"}  # the same view, links included
        assert gid in srv.tables.open


def test_a_full_server_puts_its_longest_idle_table_away():
    with running(max_tables=2) as srv:
        first, second = new_table(srv), new_table(srv)
        assert srv.get(f"/api/view/{first['id']}")[0] == 200  # the second is now the longest idle
        new_table(srv)
        assert second["id"] not in srv.tables.open and len(srv.tables.open) == 2
        status, data = srv.get(f"/api/view/{second['id']}")  # loaded again (the first is put away instead)
        assert status == 200 and data["version"] == second["version"]
        assert len(srv.tables.open) == 2 and first["id"] not in srv.tables.open
        assert srv.get(f"/api/view/{first['id']}")[0] == 200


# -- quaternity serve ---------------------------------------------------------------------------------
def test_serve_on_a_busy_port_or_a_foreign_address_is_one_line_and_exit_2():
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        port = busy.getsockname()[1]
        res = CliRunner().invoke(main, ["serve", "--port", str(port)])
        assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
        assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in res.output
        assert "Quaternity table on" not in res.output
    finally:
        busy.close()
    res = CliRunner().invoke(main, ["serve", "--host", "192.0.2.1", "--port", "8000"])  # TEST-NET-1: not ours
    assert res.exit_code == 2 and "not one of this machine's" in res.output and res.output.count("\n") == 1
    res = CliRunner().invoke(main, ["serve", "--allow-host", "a:b"])
    assert res.exit_code == 2 and "--allow-host" in res.output


# -- probes: the guard's origins, file names, the stream cap under concurrency ---------------------------
def test_only_the_servers_own_origin_by_its_scheme_reaches_the_api(live):
    """Sec-Fetch-Site other than same-origin or none is refused whatever the Origin says; an Origin with
    another scheme than the server's (https:// on this plain-HTTP server) is another origin."""
    own = f"http://{live.host}"
    assert live.get("/api/games", Origin=own, **{"Sec-Fetch-Site": "same-origin"})[0] == 200
    assert live.get("/api/games", **{"Sec-Fetch-Site": "none"})[0] == 200
    for site in ("same-site", "cross-site", "SAME-SITE", "nonsense"):
        status, data = live.get("/api/games", Origin=own, **{"Sec-Fetch-Site": site})
        assert status == 403 and "other pages" in data["error"], (site, status)
    for origin in (f"https://{live.host}", f"https://localhost:{live.port}"):
        status, data = live.post("/api/new", {"seed": 1, "options": SMALL}, Origin=origin)
        assert status == 403 and "other pages" in data["error"], (origin, status)
    assert live.get(f"/t/x", **{"Sec-Fetch-Site": "same-site"})[0] == 200  # pages open from anywhere


@pytest.mark.parametrize("path", ["/static/" + "a" * 300 + ".js", "/static/" + "b" * 5000 + ".css",
                                  "/static/" + "%C3%A9" * 200 + ".js", "/static/%00.js", "/rules/" + "c" * 300,
                                  "/static/" + "d" * 300, "/games/quarto/" + "e" * 300 + ".js",
                                  "/games/" + "f" * 300 + "/table.js", "/games/quarto/%00.js",
                                  "/games/quarto/%2e%2e%2fweb.py", "/games/quarto/..%5cweb.py",
                                  "/games/quarto/.table.js", "/static/rules-" + "g" * 80 + ".html"])
def test_long_or_odd_file_names_are_not_found_in_words(live, path):
    status, data = live.get(path)
    # (a decoded "/" in the name makes an address no route has: "no such address")
    assert status == 404 and data["error"] in ("no such file", "no rules page for that game", "no such address"), \
        (status, data)


def test_the_event_stream_cap_holds_under_concurrent_openings():
    """100 pages open the same table's event stream at once: exactly max_streams get one (each answers its
    first event), the others 503 in words; once they are closed, the count is back to zero."""
    httpx = pytest.importorskip("httpx")
    import asyncio

    openings, cap = 100, 8
    with running(max_streams=cap, header_seconds=SAFETY) as srv:  # the cap decides, never the head timeout
        gid = new_table(srv)["id"]
        table = srv.tables.open[gid]

        async def storm() -> list[int]:
            answered = 0
            everyone = asyncio.Event()
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
            async with httpx.AsyncClient(base_url=f"http://{srv.host}", timeout=SAFETY, limits=limits) as client:
                async def one() -> int:
                    nonlocal answered
                    async with client.stream("GET", f"/api/events/{gid}") as res:
                        if res.status_code == 200:
                            async for line in res.aiter_lines():  # the stream is really open: its first event
                                if line.startswith("data: "):
                                    break
                        else:
                            body = json.loads(await res.aread())
                            assert res.status_code == 503 and f"already has {cap} open pages" in body["error"]
                        answered += 1
                        if answered == openings:
                            everyone.set()
                        await asyncio.wait_for(everyone.wait(), SAFETY)  # held open until all are answered
                        return res.status_code

                return await asyncio.wait_for(asyncio.gather(*(one() for _ in range(openings))), SAFETY)

        statuses = asyncio.run(storm())
        assert statuses.count(200) == cap and statuses.count(503) == openings - cap, sorted(statuses)
        deadline = time.monotonic() + SAFETY
        while table.streams:  # the server sees the connections close
            assert time.monotonic() < deadline, f"{table.streams} streams still counted"
            time.sleep(0.01)
        with srv.events(f"/api/events/{gid}") as stream:
            assert next_event(stream)[0] == "message"


# -- the view cache ------------------------------------------------------------------------------------
class Yielding(Ponder):
    """Ponder's twin that answers yes (the asker keeps the turn: the agents stop after its move)."""

    def step(self, observation, legal_actions, rng):
        Ponder.started.set()
        assert Ponder.released.wait(SAFETY)
        return next((a for a in legal_actions if getattr(a, "answer", None) is True), legal_actions[0])


def test_a_move_never_answers_a_view_cached_at_an_older_version(ponder, monkeypatch):
    """An undo waits for an agent's move while another request of the same seat asks for the view with
    probabilities: the undo answers the view after the undo, not the one cached before the agent moved."""
    monkeypatch.setitem(load_all()["quartets"].agents, "yielding", Yielding)
    with running(act_seconds=0.1) as srv:
        table = new_table(srv, agents={"1": "yielding", "2": "random"},
                          options={"players": 3, "sets": 3, "set_size": 2})
        gid = table["id"]
        shared = srv.tables.open[gid]
        status, asked = srv.post(f"/api/act/{gid}", {"action": "0>1:A0?"})
        assert status == 200 and asked["thinking"] == 1 and ponder.started.wait(SAFETY)
        answers: dict[str, tuple[int, dict]] = {}

        def later(name, method, path, body=None):
            thread = threading.Thread(target=lambda: answers.__setitem__(
                name, srv.post(path, body) if method == "POST" else srv.get(path)), daemon=True)
            thread.start()
            return thread

        def wait_for(condition, what):
            deadline = time.monotonic() + SAFETY
            while not condition():
                assert time.monotonic() < deadline, what
                time.sleep(0.005)

        touched = shared.touched
        undo = later("undo", "POST", f"/api/undo/{gid}", {"probabilities": False})
        wait_for(lambda: shared.touched != touched, "the undo did not reach its table")  # then it waits for it
        view = later("view", "GET", f"/api/view/{gid}?probabilities=1")
        wait_for(lambda: shared.probabilities.get(0) is True, "the view did not reach its table")
        ponder.released.set()
        undo.join(SAFETY)
        view.join(SAFETY)
        status, undone = answers["undo"]
        assert status == 200 and answers["view"][0] == 200
        status, now = srv.get(f"/api/view/{gid}")
        assert undone["version"] == now["version"] and undone["version"] > asked["version"]
        assert undone["log"] == now["log"] == [] and undone["your_turn"]


# -- agents' budgets and cancelled work ------------------------------------------------------------------
BIG_CLASSIC = {"preset": "classic", "players": 4, "sets": 16, "set_size": 10}  # a determinized move: minutes
SEARCHERS = {"0": "determinized", "1": "determinized", "2": "determinized"}


def test_a_search_agents_move_at_the_web_table_has_a_budget():
    """At the largest classic table, a determinized agent's move (minutes unbounded) ends within its budget:
    the server's default agent_seconds; the move is played, the table goes on."""
    with running(act_seconds=0.1) as srv:
        status, table = srv.post("/api/new", {"seed": 3, "options": BIG_CLASSIC, "human": 3, "agents": SEARCHERS})
        assert status == 200 and table["thinking"] == 0, table
        with srv.events(f"/api/events/{table['id']}") as stream:
            start = time.monotonic()
            name, data = next_event(stream)
            while data["version"] <= table["version"]:
                name, data = next_event(stream)  # SAFETY: a hung move fails here
            assert name == "message" and "agent_error" not in data
            assert time.monotonic() - start < SAFETY / 2


def test_a_closed_tables_work_is_cancelled_and_frees_its_worker():
    """One worker; a table whose agent thinks without a budget is closed (idle): its move stops at once, so
    another table is served at once instead of after the move (minutes: a 503 after request_seconds)."""
    with running(workers=1, idle_seconds=1.0, act_seconds=0.1, agent_seconds=None) as srv:
        status, table = srv.post("/api/new", {"seed": 3, "options": BIG_CLASSIC, "human": 3, "agents": SEARCHERS})
        assert status == 200 and table["thinking"] == 0, table
        with srv.events(f"/api/events/{table['id']}") as stream:
            rest_of_stream(stream)  # put away (idle): the stream ends
        assert srv.lively() < LIVELY
        start = time.monotonic()
        status, other = srv.post("/api/new", {"seed": 1, "options": SMALL})
        assert status == 200, other
        assert time.monotonic() - start < SAFETY / 2
        assert table["id"] not in srv.tables.open and srv.tables.store.load(table["id"]) is not None
