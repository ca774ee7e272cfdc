"""`kb serve`: the Starlette application and how it is run with uvicorn.

`create_app(index, token=…, allowed_hosts=…)` is the whole server (pages, API, release files,
the package's static stylesheet and script) behind `security.Guard`. `check_bind` decides whether a
host may be bound: loopback always; any other address only with a token, or with
``open_network`` said explicitly (then a warning is printed on every start). `open_source`
picks what is served (an index location, or a Milvus alias with ``--engine``); `run` starts
uvicorn with `server_config`.

A client that sends half a request and stalls must not hold a connection for ever: uvicorn
answers 503 to everyone once `MAX_CONNECTIONS` connections are open, and has no deadline of
its own for a request's headers (its keep-alive timeout ends once any byte of the next
request arrives). `deadlines` gives each request's headers `HEADER_SECONDS` from the
moment the connection can take it (opened, or the previous response sent): a request begun
is answered 408 and closed, an idle connection closed. A body is read within
`ops.BODY_SECONDS` (`ops.read_bounded`). A client that stops reading its responses (the
server's send buffer full for `SEND_SECONDS`) has its connection dropped.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import sys
from http import HTTPStatus
from pathlib import Path

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from kbtools.beneath import read_regular
from kbtools.engine.milvus import ALIAS, connect_url
from kbtools.engine.remote import EngineReader
from kbtools.errors import UsageError
from kbtools.serve import api, ops, pages
from kbtools.serve.compress import Compression
from kbtools.serve.held import AnswerTags, HeldQuestions
from kbtools.serve.security import LOOPBACK_HOSTS, Guard, is_api_path, security_headers
from kbtools.serve.source import EngineServedIndex, PinRequests, ServedIndex, Workers
from kbtools.serve.staticfiles import WORKER, static_file, worker_file

log = logging.getLogger("kbtools.serve")

TOKEN_CHARS = re.compile(r"^[A-Za-z0-9._~+/=-]{16,512}$")
MAX_TOKEN_FILE = 4096
MAX_CONNECTIONS = 256  # open at once; uvicorn answers 503 past it
HEADER_SECONDS = 15.0  # a request's headers (at most MAX_HEADER_BYTES) arrive within this
SEND_SECONDS = 30.0  # a client takes some of a response within this once the buffer is full
MAX_HEADER_BYTES = 16 * 1024
KEEP_ALIVE_SECONDS = 5
BEGUN_BYTES = 1024  # of a request kept until its head is read: its address, for a refusal


def create_app(index: Path | str | None, *, token: str | None = None,
               allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS,
               source: ServedIndex | None = None, workers: int = 1,
               body_seconds: float = ops.BODY_SECONDS) -> Guard:
    """The ASGI application serving `index` (a release, ``dist/`` or a device directory; a
    path or its name); a request body must arrive within `body_seconds`."""
    app = Starlette(routes=[*api.routes(), *pages.routes(),
                            Route("/static/{name}", static_file, name="static"),
                            Route("/" + WORKER, worker_file)],
                    exception_handlers={HTTPException: http_error})
    app.state.source = source = source or ServedIndex(None if index is None else Path(index))
    app.state.workers = Workers(workers)
    app.state.body_seconds = body_seconds
    app.state.held = HeldQuestions()
    app.state.answer_tags = AnswerTags()
    return Guard(Compression(PinRequests(app, source)), token=token, allowed_hosts=allowed_hosts,
                 refusal_page=pages.refusal_page, api_refusal=api.refusal)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, wrong method): in the API's shape under
    /api/, plain text for the stylesheet, an error page for a page address."""
    if is_api_path(request.url.path) or request.url.path.startswith("/static/"):
        return await api.http_error(request, exc)
    return await pages.http_error(request, exc)


def read_token(path: Path) -> str:
    """The token in `path` (one line, 16–512 URL-safe characters)."""
    try:
        text = read_regular(path, MAX_TOKEN_FILE).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the token file: {getattr(exc, 'strerror', None) or exc}",
                         path=str(path)) from None
    if not TOKEN_CHARS.match(text):
        raise UsageError("the token file must hold one token of 16-512 characters "
                         "(letters, digits and . _ ~ + / = -)", path=str(path))
    return text


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None, open_network: bool) -> tuple[str, ...]:
    """The Host names the server answers for; UsageError when `host` may not be bound."""
    if is_loopback(host):
        return (*LOOPBACK_HOSTS, host)
    if token is None and not open_network:
        raise UsageError(f"refusing to listen on {host} without a token: pass --token-file F "
                         "(clients send 'Authorization: Bearer <token>'), or --open to serve "
                         "everyone on the network without one")
    return ("*",)


def open_source(index: Path | None, engine: str | None = None,
                engine_token_file: Path | None = None, engine_alias: str = ALIAS) -> ServedIndex:
    """What to serve: `index` (followed as a device's ``current``), or the release an
    engine's alias `engine_alias` names (``milvus://…``, followed the same way)."""
    if engine is None:
        return ServedIndex(index)
    if index is not None:
        raise UsageError("give --index or --engine, not both")
    return EngineServedIndex(EngineReader(connect_url(engine, engine_token_file), engine_alias,
                                          files=True))


def run(index: Path | None, *, host: str = "127.0.0.1", port: int = 8080,
        token_file: Path | None = None, open_network: bool = False, workers: int = 1,
        engine: str | None = None, engine_token_file: Path | None = None,
        engine_alias: str = ALIAS) -> None:
    """Serve until interrupted."""
    token = read_token(token_file) if token_file is not None else None
    allowed = check_bind(host, token, open_network)
    if not is_loopback(host) and token is None:
        print(f"kb serve: WARNING: serving {host}:{port} to the network WITHOUT a token: "
              "anyone who can reach it can read the knowledge", file=sys.stderr)
    source = open_source(index, engine, engine_token_file, engine_alias)
    source.get()  # fail now, in one line, when there is nothing to serve
    app = create_app(index, token=token, allowed_hosts=allowed, source=source, workers=workers)
    print(f"kb serve: http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    uvicorn.Server(server_config(app, host, port)).run()


def server_config(app: Guard, host: str, port: int,
                  header_seconds: float = HEADER_SECONDS,
                  send_seconds: float = SEND_SECONDS) -> uvicorn.Config:
    """How uvicorn runs `app`: its bounds and deadlines (see the module docstring)."""
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          server_header=False, limit_concurrency=MAX_CONNECTIONS,
                          timeout_keep_alive=KEEP_ALIVE_SECONDS,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                          http=deadlines(header_seconds, send_seconds))


TIMEOUT_BODY = b"408: the request's headers did not arrive in time\n"
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"connection: close\r\ncontent-length: " + str(len(TIMEOUT_BODY)).encode()
                    + b"\r\n\r\n" + TIMEOUT_BODY)


def unreadable_request(buffered: bytes, begun: bytes = b"") -> bytes:
    """The whole answer (status line to body, the connection then closed) to a request
    h11 refused to read, from what of it h11 holds (`buffered`; nothing once it read a
    head it refused) and its first bytes (`begun`, which name its address): its address over
    `MAX_HEADER_BYTES` (a long question sent by GET in several TCP segments, as a patchy
    link delivers it; whole, it is `security.Guard`'s 414) is 414, its headers over it 431,
    anything else 400. To an API address the API's JSON error (uvicorn answered plain text
    "Invalid HTTP request received." to every address), to a page address an error page."""
    line, ended, _ = buffered.partition(b"\n")
    parts = (begun or line).split(b"\n", 1)[0].split(b" ")
    path = (parts[1] if len(parts) > 1 else b"").split(b"?")[0].decode("latin-1")
    if len(buffered) > MAX_HEADER_BYTES and (not ended or len(line) > MAX_HEADER_BYTES):
        status, message, zh = (414, f"address longer than {MAX_HEADER_BYTES} bytes: send a "
                               "long question by POST", f"网址超过 {MAX_HEADER_BYTES} 字节：长问题请用 POST 提交")
    elif len(buffered) > MAX_HEADER_BYTES:
        status, message, zh = (431, f"request headers larger than {MAX_HEADER_BYTES} bytes",
                               f"请求头超过 {MAX_HEADER_BYTES} 字节")
    else:
        status, message, zh = 400, "not a valid HTTP request", "不是有效的 HTTP 请求"
    if is_api_path(path):
        response: Response = api.error_response(status, message)
        body, ctype = bytes(response.body), "application/json"
        head = [(k, v) for k, v in response.raw_headers if k != b"content-length"]
    else:
        scope = {"type": "http", "method": "GET", "path": path or "/", "query_string": b"",
                 "headers": []}
        body, ctype = pages.refusal_page(scope, status, message, zh), "text/html"
        head = [(b"content-type", b"text/html; charset=utf-8"), (b"cache-control", b"no-store")]
    fields = [*head, (b"content-length", str(len(body)).encode()), (b"connection", b"close"),
              *security_headers(ctype)]
    return (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()
            + b"".join(k + b": " + v + b"\r\n" for k, v in fields) + b"\r\n" + body)


def deadlines(seconds: float, send_seconds: float) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with a deadline for each request's headers: `seconds`
    from the connection being opened or its previous response sent. A connection whose
    request is still incomplete then is answered 408 and closed; one with nothing of a
    request, closed (the deadline does not apply while a request runs: its body has
    `ops.read_bounded`'s). And one for the client to take its responses: a connection whose
    send buffer stays full for `send_seconds` is dropped (uvicorn would wait for ever, the
    request's task and the connection held)."""

    class Deadlines(H11Protocol):
        timer: asyncio.TimerHandle | None = None
        stalled: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.arm()

        def connection_lost(self, exc: Exception | None) -> None:
            for timer in (self.timer, self.stalled):
                if timer is not None:
                    timer.cancel()
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            super().pause_writing()
            if self.stalled is None:
                self.stalled = self.loop.call_later(send_seconds, self.transport.abort)

        def resume_writing(self) -> None:
            if self.stalled is not None:
                self.stalled.cancel()
                self.stalled = None
            super().resume_writing()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.arm()  # the next request's headers

        def arm(self) -> None:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = self.loop.call_later(seconds, self.expired)

        begun = b""  # the first bytes of the request being read (h11 drops a bad head)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]:
                self.begun = b""
            if len(self.begun) < BEGUN_BYTES:
                self.begun += data[:BEGUN_BYTES - len(self.begun)]
            super().data_received(data)

        def send_400_response(self, msg: str) -> None:
            # a request h11 cannot read: uvicorn's own answer is plain text to any address
            self.transport.write(unreadable_request(bytes(self.conn.trailing_data[0]),
                                                    self.begun))
            self.transport.close()

        def expired(self) -> None:
            self.timer = None
            if self.transport.is_closing():
                return
            if self.cycle is not None and not self.cycle.response_complete:
                return  # its headers came: the request runs (or reads its body)
            begun = self.conn.their_state is not h11.IDLE or bool(self.conn.trailing_data[0])
            if begun:
                self.transport.write(TIMEOUT_RESPONSE)
            self.transport.close()

    return Deadlines
