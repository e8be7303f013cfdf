"""The web server's HTTP edges, on a raw socket against a real uvicorn server (the one ``quaternity serve`` runs).

A request head over 16 KiB is refused with 431 however it arrives (h11 alone
limits only a head still incomplete, so one sent in one piece used to pass); a
request framed both by ``Content-Length`` and ``Transfer-Encoding`` with 400
(request smuggling, RFC 9112 section 6.1); a missing or empty ``Host`` with
400 (421 stays for a name that is not the server's). Each refusal closes the
connection: every exchange here reads until the server closes it, and a
server that kept it open would be caught by the socket's safety timeout.
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")

from quaternity_cp.web.guard import HEAD_BYTES  # noqa: E402
from test_web_attacks import SMALL, Live, closed_by_server, running  # noqa: E402

BODY = json.dumps({"seed": 1, "options": SMALL}).encode()


@pytest.fixture(scope="module")
def live():
    with running() as server_:
        yield server_


def exchange(live: Live, *pieces: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of what the server answered to ``pieces`` sent one after another on one connection,
    read until the server closed it (at most one answer: asserted)."""
    conn = live.connect()
    try:
        for piece in pieces:
            conn.sendall(piece)
        answer = closed_by_server(conn)
    finally:
        conn.close()
    assert len(re.findall(rb"HTTP/1\.1 \d{3} ", answer)) == 1, answer[:2000]  # a status line, wherever it is
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def error(body: bytes) -> str:
    return json.loads(body)["error"]


def head_of(live: Live, size: int, end: bool = True) -> bytes:
    """A ``GET /api/games`` request head of exactly ``size`` bytes (with ``Connection: close``), or, not ``end``,
    its first ``size`` bytes without the blank line that would end it."""
    start = f"GET /api/games HTTP/1.1\r\nHost: {live.host}\r\nConnection: close\r\nX-Pad: ".encode()
    pad = size - len(start) - len(b"\r\n\r\n")
    assert pad >= 0
    return start + b"a" * pad + (b"\r\n\r\n" if end else b"")


def refused_as_too_large(answer: tuple[int, dict[str, str], bytes]) -> None:
    status, headers, body = answer
    assert status == 431, answer
    assert headers["connection"] == "close" and headers["content-type"] == "application/json"
    assert error(body) == f"the request head is larger than {HEAD_BYTES:,} bytes"
    assert headers["x-content-type-options"] == "nosniff"


def served(live: Live) -> None:
    """The server still answers a plain request after a refusal."""
    status, _, body = exchange(live, head_of(live, 200))
    assert status == 200 and json.loads(body)


# -- the request head's size ----------------------------------------------------------------------
def test_a_head_of_16_kib_is_served_and_one_byte_more_is_431_in_one_piece(live):
    assert HEAD_BYTES == 16 * 1024  # what docs/web-api.md says
    status, _, body = exchange(live, head_of(live, HEAD_BYTES))
    assert status == 200 and json.loads(body)
    refused_as_too_large(exchange(live, head_of(live, HEAD_BYTES + 1)))
    refused_as_too_large(exchange(live, head_of(live, 60_000)))  # once served whatever its size
    served(live)


def test_a_head_over_16_kib_is_431_when_it_comes_in_pieces(live):
    """Still incomplete past the limit (h11's own limit), or complete with a last piece that takes it over."""
    whole = head_of(live, HEAD_BYTES + 2_000)
    refused_as_too_large(exchange(live, whole[:10_000], whole[10_000:HEAD_BYTES + 1_000]))  # never ended
    refused_as_too_large(exchange(live, whole[:HEAD_BYTES - 100], whole[HEAD_BYTES - 100:]))
    small = head_of(live, HEAD_BYTES)
    status, _, _ = exchange(live, small[:HEAD_BYTES - 100], small[HEAD_BYTES - 100:])
    assert status == 200
    served(live)


def test_many_headers_count_together(live):
    """The limit is on the whole head, not on one header."""
    lines = b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 200) for i in range(100))  # about 21 KB in 100 headers
    refused_as_too_large(exchange(live, f"GET / HTTP/1.1\r\nHost: {live.host}\r\n".encode() + lines + b"\r\n"))
    served(live)


# -- Content-Length with Transfer-Encoding ------------------------------------------------------------
def chunked(body: bytes) -> bytes:
    return f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


@pytest.mark.parametrize("framing", [
    b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
    b"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: chunked\r\nContent-length: 1000\r\n",
])
def test_content_length_with_chunked_is_400_and_closed(live, framing):
    before = len(live.tables.open)
    request = (f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nContent-Type: application/json\r\n".encode()
               + framing + b"\r\n" + chunked(BODY))
    status, headers, body = exchange(live, request)
    assert status == 400 and headers["connection"] == "close", (status, body)
    assert "both Content-Length and Transfer-Encoding" in error(body)
    assert len(live.tables.open) == before  # no table was made
    served(live)


def test_a_request_smuggled_behind_the_two_framings_is_never_answered(live):
    """Read by Content-Length, the body would end early and a second request follow; nothing of it is answered
    (``exchange`` asserts a single answer, then the close)."""
    hidden = f"GET /api/games HTTP/1.1\r\nHost: {live.host}\r\n\r\n".encode()
    request = (f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nContent-Length: 5\r\n"
               "Transfer-Encoding: chunked\r\n\r\n".encode() + b"0\r\n\r\n" + hidden)
    assert exchange(live, request)[0] == 400


def test_one_framing_alone_is_served(live):
    """The controls: the same table request framed by Content-Length alone, or chunked alone."""
    start = f"POST /api/new HTTP/1.1\r\nHost: {live.host}\r\nContent-Type: application/json\r\nConnection: close\r\n"
    status, _, body = exchange(live, start.encode() + f"Content-Length: {len(BODY)}\r\n\r\n".encode() + BODY)
    assert status == 200 and json.loads(body)["id"]
    status, _, body = exchange(live, start.encode() + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(BODY))
    assert status == 200 and json.loads(body)["id"]


# -- Host ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("host", [b"Host: \r\n", b"Host:\r\n", b"Host:    \r\n"])
@pytest.mark.parametrize("path", ["/", "/api/games"])
def test_an_empty_host_is_400(live, host, path):
    status, headers, body = exchange(live, f"GET {path} HTTP/1.1\r\n".encode() + host + b"Connection: close\r\n\r\n")
    assert status == 400 and "Host" in error(body), (status, body)
    assert headers["connection"] == "close"


@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_a_missing_host_is_400(live, version):
    status, _, body = exchange(live, f"GET /api/games HTTP/{version}\r\nConnection: close\r\n\r\n".encode())
    assert status == 400 and "Host" in error(body), (status, body)


def test_two_hosts_are_400_and_another_name_stays_421(live):
    status, _, body = exchange(live, f"GET /api/games HTTP/1.1\r\nHost: {live.host}\r\nHost: {live.host}\r\n"
                                     "Connection: close\r\n\r\n".encode())
    assert status == 400 and "Host" in error(body)  # h11's words: "Found multiple Host: headers"
    status, _, body = exchange(live, b"GET /api/games HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert status == 421 and "does not answer to the name" in error(body)
