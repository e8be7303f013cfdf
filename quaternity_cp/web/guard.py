"""What keeps the web table to its own pages and its own address, and slow clients from holding it.

* :class:`Hosts` and :class:`Guard` (ASGI middleware): a request whose
  ``Host`` is not one of the server's own names is refused with 421 (no DNS
  rebinding: a page at ``evil.example`` whose name resolves to this machine is
  not served), and one without a ``Host`` or with an empty one with 400; a
  request from another page (an ``Origin`` that is not the
  server's own, by its names, its port and its scheme, or a browser's
  ``Sec-Fetch-Site`` other than ``same-origin`` or ``none`` on the API) with
  403. The server's own names: ``localhost``, ``127.0.0.1``, ``[::1]``, the
  address the connection came in on, and the names given (the ``--host`` it
  listens on, the machine's names when it listens on every address, and
  ``--allow-host``), each with the port the server listens on.
* :func:`header_timeout_protocol`: uvicorn's h11 protocol, closing a
  connection that has not sent a whole request head within a time limit
  (uvicorn itself waits forever for half-sent headers), refusing a request
  head over :data:`HEAD_BYTES` however it arrives (431; h11 alone limits only
  a head still incomplete, not one sent in one piece) and a request framed
  twice, by ``Content-Length`` and ``Transfer-Encoding`` (400: request
  smuggling, RFC 9112 section 6.1), each answer closing the connection.

This module needs the ``[web]`` extra (Starlette, uvicorn) and names no game.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

#: Names every server answers to, besides the address a connection came in on.
LOOPBACK = ("localhost", "127.0.0.1", "::1")

#: The most bytes a request head (request line and headers) may take.
HEAD_BYTES = 16 * 1024


def split_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` value (``name``, ``name:port``, ``[v6]:port``) as (lower-case name, port or None); None if malformed.

    >>> split_host("LocalHost:8000"), split_host("[::1]:80"), split_host("example.org")
    (('localhost', 8000), ('::1', 80), ('example.org', None))
    >>> split_host("a:b") is None, split_host("[::1") is None
    (True, True)
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
    if not name:
        return None
    if not rest:
        return name, None
    digits = rest[1:]
    if rest[0] != ":" or not (digits.isascii() and digits.isdigit()) or len(digits) > 5:
        return None
    return name, int(digits)


class Hosts:
    """The names a server answers to (:data:`LOOPBACK`, the connection's own address and ``names``), on its port.

    An entry of ``names`` with a port (``example.org:443``) also matches a
    ``Host`` header equal to it whatever port the server listens on (a proxy
    in front of it).
    """

    def __init__(self, names: Iterable[str] = ()):
        self.names = set(LOOPBACK)
        self.exact: set[str] = set()
        for entry in names:
            bare_v6 = entry.count(":") > 1 and not entry.startswith("[")
            parts = (entry.strip().lower(), None) if bare_v6 else split_host(entry)
            if parts is None:
                raise ValueError(f"{entry!r} is not a host name, an address or NAME:PORT")
            self.names.add(parts[0])
            if parts[1] is not None:
                self.exact.add(entry.strip().lower())

    def allows(self, value: str, scheme: str, local: Any) -> bool:
        """Whether a ``Host`` value names this server for a connection on ``local`` (the ASGI ``server``)."""
        parts = split_host(value)
        if parts is None:
            return False
        if value.strip().lower() in self.exact:
            return True
        name, port = parts
        local_name, local_port = (local[0], local[1]) if local else (None, None)
        if name not in self.names and name != str(local_name).lower():
            return False
        if local_port is None:
            return True
        return (port if port is not None else (443 if scheme in ("https", "wss") else 80)) == local_port


def origin_host(origin: str) -> tuple[str, str] | None:
    """An ``Origin`` value as (scheme, host part); None for ``null`` or anything but http(s)."""
    scheme, sep, rest = origin.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https") or not rest or "/" in rest:
        return None
    return scheme.lower(), rest


class Guard:
    """ASGI middleware: 421 for a ``Host`` that is not this server's, 403 for a request from another page.

    Pages (``/``, ``/t/...``, the static files) may be opened from anywhere (a
    join link pasted in a chat); the API (``/api/``) answers only the
    server's own pages: a request carrying an ``Origin`` must come from one of
    the server's own addresses with the server's scheme (:meth:`same_origin`),
    and one a browser marks with a ``Sec-Fetch-Site`` other than
    ``same-origin`` or ``none`` (``same-site``: another port or a sibling
    name; ``cross-site``) is refused whatever its ``Origin`` says.
    """

    def __init__(self, app, hosts: Hosts):
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, list[str]] = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.decode("latin-1"), []).append(value.decode("latin-1"))
        refusal = self.refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, _with_headers(send, scope["path"].startswith("/api/")))
            return
        status, message = refusal
        send = _with_headers(send, True)
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope, headers: dict[str, list[str]]) -> tuple[int, str] | None:
        """(status, message) when the request must be refused, else None."""
        scheme, local = scope.get("scheme", "http"), scope.get("server")
        host = headers.get("host", [])
        if len(host) != 1 or not host[0].strip():
            found = "it is empty" if host and len(host) == 1 else f"it has {len(host) or 'none'}"
            return 400, f"the request must name the server in exactly one Host header ({found})"
        if not self.hosts.allows(host[0], scheme, local):
            return 421, (f"this server does not answer to the name {_short(host[0])}: open it by its own address "
                         "(the one 'quaternity serve' printed), or start it with --allow-host NAME")
        if not scope["path"].startswith("/api/"):
            return None
        sites = headers.get("sec-fetch-site", [])
        if sites and (len(sites) != 1 or sites[0].strip().lower() not in ("same-origin", "none")):
            return 403, "requests from other pages are refused"  # a browser says the page is not this server's
        origin = headers.get("origin", [])
        if origin:
            parts = origin_host(origin[0]) if len(origin) == 1 else None
            if parts is None or not self.same_origin(parts, scheme, local):
                return 403, f"requests from other pages are refused (this one came from {_short(origin[0])})"
        return None

    def same_origin(self, origin: tuple[str, str], scheme: str, local: Any) -> bool:
        """Whether an ``Origin`` (scheme, host part) is one of this server's own: one of its names on its port,
        by the scheme it is served with (``https://`` on a plain-HTTP server is another origin), or a name
        given with its port (a proxy in front of the server, whatever its scheme)."""
        origin_scheme, host = origin
        if host.strip().lower() in self.hosts.exact:
            return True
        own = "https" if scheme in ("https", "wss") else "http"
        return origin_scheme == own and self.hosts.allows(host, origin_scheme, local)


#: Headers of every answer: no sniffing, no framing by other pages, no address (with a seat's token) sent onwards.
SAFETY_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                  (b"content-security-policy", b"frame-ancestors 'none'"), (b"referrer-policy", b"no-referrer")]


def _with_headers(send, api: bool):
    """``send`` adding :data:`SAFETY_HEADERS` (and, for the API, ``Cache-Control: no-store``) to the answer."""

    async def wrapped(message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", [])) + SAFETY_HEADERS
            if api and not any(k.lower() == b"cache-control" for k, _ in headers):
                headers.append((b"cache-control", b"no-store"))
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


def _short(text: str, limit: int = 60) -> str:
    """Client text for a message: printable ASCII, shortened."""
    clean = "".join(ch if " " <= ch <= "~" else "?" for ch in text)
    return repr(clean if len(clean) <= limit else clean[: limit - 1] + "...")


def header_timeout_protocol(seconds: float, head_bytes: int = HEAD_BYTES) -> type:
    """uvicorn's h11 HTTP protocol, closing a connection that sends no whole request head within ``seconds``.

    The clock starts when the connection opens and again when a response
    ends; it is stopped by a complete request head (the app's own limits then
    take over: the body's read timeout, the request's time budget). uvicorn's
    ``timeout_keep_alive`` alone does not do this: it stops counting at the
    first byte a client sends. When the server stops, an answer still being
    streamed (an event stream) is cut at once instead of holding the shutdown.

    A request head over ``head_bytes`` is refused with 431, whether it came
    in pieces (h11's own limit on an incomplete event) or in one piece (which
    h11 parses whatever its size); a request with both ``Content-Length`` and
    ``Transfer-Encoding`` with 400 (the two framings a smuggled request plays
    on). Every request h11 cannot parse is answered in JSON (``{"error"}``,
    400 but for the head's size) with :data:`SAFETY_HEADERS`, and the
    connection is closed.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

    class HeadLimits(h11.Connection):
        """h11's server side, measuring each request head and refusing the two framings together."""

        refusal: tuple[int, str] | None = None  # (status, message) of the last request refused

        def next_event(self):
            head = self.their_state is h11.IDLE  # a request head is next
            before = len(self.trailing_data[0]) if head else 0
            try:
                event = super().next_event()
            except h11.RemoteProtocolError as exc:
                if head and exc.error_status_hint == 431:
                    self.refusal = 431, f"the request head is larger than {head_bytes:,} bytes"
                else:
                    self.refusal = 400, f"the request is not valid HTTP/1.1 ({exc})"
                raise
            if isinstance(event, h11.Request):
                self.refusal = None
                names = {name.lower() for name, _ in event.headers}
                if before - len(self.trailing_data[0]) > head_bytes:
                    self.refusal = 431, f"the request head is larger than {head_bytes:,} bytes"
                elif b"content-length" in names and b"transfer-encoding" in names:
                    self.refusal = 400, ("the request gives both Content-Length and Transfer-Encoding: "
                                         "send one of them")
                if self.refusal is not None:
                    raise h11.RemoteProtocolError(self.refusal[1], error_status_hint=self.refusal[0])
            return event

    class HeaderTimeoutProtocol(H11Protocol):
        header_seconds = seconds
        _header_timer: Any = None

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.conn = self.limits = HeadLimits(h11.SERVER, max_incomplete_event_size=head_bytes)

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def send_400_response(self, msg: str) -> None:
            """The answer to a request h11 refused (uvicorn's is a plain-text 400 whatever the cause)."""
            status, message = self.limits.refusal or (400, msg)
            body = json.dumps({"error": message}).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                       (b"connection", b"close"), *SAFETY_HEADERS]
            try:
                for event in (h11.Response(status_code=status, headers=headers, reason=STATUS_PHRASES[status]),
                              h11.Data(data=body), h11.EndOfMessage()):
                    self.transport.write(self.conn.send(event))
            except h11.LocalProtocolError:
                pass  # no answer can be sent any more (one was under way): the connection is closed anyway
            self.transport.close()

        def shutdown(self) -> None:
            cycle = getattr(self, "cycle", None)
            super().shutdown()
            if cycle is not None and cycle.response_started and not cycle.response_complete:
                self.transport.close()  # an answer that never ends (an event stream) ends with the server

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self._header_timer = self.loop.call_later(self.header_seconds, self._expire)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _expire(self) -> None:
            self._header_timer = None
            cycle = getattr(self, "cycle", None)
            waiting = cycle is None or cycle.response_complete  # no request of this connection being answered
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol


__all__ = ["LOOPBACK", "HEAD_BYTES", "SAFETY_HEADERS", "split_host", "Hosts", "origin_host", "Guard",
           "header_timeout_protocol"]
