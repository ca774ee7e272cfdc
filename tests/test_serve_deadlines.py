"""`kb serve` under clients that send half a request and stall: a real uvicorn server (as
`kb serve` configures it, `app.server_config`) answers them 408 or closes their connections
once their deadlines pass (and drops one that stops reading its responses), so the connections uvicorn allows (`app.MAX_CONNECTIONS`, 503 for
everyone past it) come back, and a normal request is answered again."""

from __future__ import annotations

import json
import socket
import time

import pytest
from servefixtures import threaded_server

from kbtools.serve.app import MAX_CONNECTIONS, create_app

HEAD = b"Host: 127.0.0.1\r\n"
STALLED = {  # what each kind of stalled client sent before it stopped
    "nothing": b"",
    "half the headers": b"GET /api/healthz HTTP/1.1\r\nHost: 127.0",
    "half a JSON body": (b"POST /api/search HTTP/1.1\r\n" + HEAD + b"Content-Type: application/json"
                         b"\r\nContent-Length: 100\r\n\r\n{\"q\": \"wheat"),
    "half a form": (b"POST / HTTP/1.1\r\n" + HEAD + b"Content-Type: application/x-www-form-"
                    b"urlencoded\r\nContent-Length: 100\r\n\r\nq=wh"),
}


@pytest.fixture
def server(tmp_path):
    """A real uvicorn server, with deadlines of a second, over a directory with no release
    (nothing here needs one: a refused request never reaches the index)."""
    yield from threaded_server(create_app(tmp_path, body_seconds=1.0), header_seconds=1.0,
                               send_seconds=1.0)


def connect(port: int, data: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    if data:
        s.sendall(data)
    return s


def read_all(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a client waiting for
    ever fails on the socket's timeout)."""
    out = bytearray()
    while part := s.recv(65536):
        out += part
    s.close()
    return bytes(out)


def status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def get(port: int, path: str) -> bytes:
    return read_all(connect(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  "Connection: close\r\n\r\n".encode()))


def test_stalled_clients_are_closed_and_their_connections_come_back(server):
    srv, port = server
    # a keep-alive client answered once that then sends half of its next request
    again = connect(port, b"GET /api/nothing HTTP/1.1\r\n" + HEAD + b"\r\n")
    assert status(again.recv(65536)) == 404
    again.sendall(b"GET /api/healthz HTTP/1.1\r\nHo")
    # with them, every connection uvicorn allows is taken (a request counts its own)
    kinds = list(STALLED)
    stalled = [(kinds[n % len(kinds)], connect(port, STALLED[kinds[n % len(kinds)]]))
               for n in range(MAX_CONNECTIONS - 2)]
    answers = {kind: set() for kind in kinds}
    for kind, s in stalled:
        response = read_all(s)
        answers[kind].add(status(response) if response else None)
        if kind == "half a JSON body" and status(response) == 408:
            body = json.loads(response.split(b"\r\n\r\n", 1)[1])
            assert body["error"]["message"] == ("the request body did not arrive within 1 "
                                                "seconds")
    assert answers == {"nothing": {None}, "half the headers": {408},
                       "half a JSON body": {408}, "half a form": {408}}
    assert read_all(again).endswith(b"408: the request's headers did not arrive in time\n")
    # every connection is given back: a normal request is answered by the app, not 503
    assert status(get(port, "/api/nothing")) == 404
    # a finished request's task leaves the server's set on the loop's next turn
    until(lambda: not srv.server_state.tasks, "request tasks left running")


def until(condition, what: str) -> None:
    """Wait for `condition` (a guard against a hang, not a measure of time)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_client_that_stops_reading_is_dropped(server):
    srv, port = server
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    # many pipelined requests whose answers (megabytes) it never reads
    s.sendall((b"GET /api/openapi.json HTTP/1.1\r\n" + HEAD + b"\r\n") * 2000)
    until(lambda: srv.server_state.connections, "the connection was not made")
    until(lambda: not srv.server_state.connections and not srv.server_state.tasks,
          "the server still holds the connection of a client that reads nothing")
    s.close()
    assert status(get(port, "/api/nothing")) == 404
