"""Where an engine is: ``milvus://HOST:PORT[/DB]`` (`EngineUrl`), the names a Milvus server
takes (`milvus_name`), and whether anything listens at the address at all (`reachable`),
found before pymilvus is imported: a wrong port is told at once, not after the client's
import (2-4 s of pandas and gRPC on a loaded machine) and its own attempt."""

from __future__ import annotations

import errno
import os
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from kbtools.errors import EngineError, UsageError

# What Milvus (Standalone, Distributed) takes as a collection's, alias's or database's name
# (milvus.io/docs/limitations.md, "Naming rules"): ASCII letters, digits and _, not starting
# with a digit, at most 255 characters. milvus-lite takes more (作物, kb-staging, 1st): a
# name only it takes works in development and fails in production.
_MILVUS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
DEFAULT_PORT, MAX_PORT = 19530, 65535


@dataclass(frozen=True)
class EngineUrl:
    """``milvus://HOST:PORT[/DB]``."""

    host: str
    port: int
    db: str = "default"

    @classmethod
    def parse(cls, text: str) -> EngineUrl:
        """``milvus://HOST:PORT[/DB]``; anything else in it is a UsageError rather than
        dropped: credentials (``milvus://root:pw@host``, as other Milvus clients take them)
        would be ignored, so the engine refused the connection as unauthenticated, and a
        password would be shown in every message naming the engine; ``?…`` and ``#…``
        would be ignored too."""
        parts = urlsplit(text)
        if parts.scheme != "milvus" or not parts.hostname:
            raise UsageError(f"bad --engine {text!r}: use milvus://HOST:PORT[/DB]")
        if "@" in parts.netloc:  # the text stays out of the message: it holds a secret
            raise UsageError("bad --engine: credentials in it are not read; write them "
                             "(user:password or an API key) in a file given as --token-file "
                             "(--engine-token-file for kb serve), and use "
                             "milvus://HOST:PORT[/DB]")
        if parts.query or parts.fragment or text.rstrip().endswith(("?", "#")):
            raise UsageError(f"bad --engine {text!r}: use milvus://HOST:PORT[/DB] (options "
                             "after ? or # are not read)")
        try:
            port = DEFAULT_PORT if parts.port is None else parts.port
        except ValueError:  # not a number, or beyond 65535
            port = -1
        if not 0 < port <= MAX_PORT:
            raise UsageError(f"bad --engine {text!r}: the port must be a number from 1 to "
                             f"{MAX_PORT} (default {DEFAULT_PORT})")
        db = parts.path.strip("/") or "default"
        if not milvus_name(db):
            raise UsageError(f"bad --engine {text!r}: database names are letters, digits "
                             "and _")
        return cls(parts.hostname, port, db)

    @property
    def netloc(self) -> str:
        """``host:port``, an IPv6 address in brackets (``[::1]:19530``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def uri(self) -> str:
        return f"http://{self.netloc}"

    def __str__(self) -> str:
        return f"milvus://{self.netloc}/{self.db}"


def milvus_name(text: str) -> bool:
    """Whether a Milvus server takes `text` as a collection's, alias's or database's name
    (`_MILVUS_NAME`)."""
    return _MILVUS_NAME.fullmatch(text) is not None


# what makes gRPC connect through a proxy (then the engine's own address is the proxy's
# to reach, and a direct attempt proves nothing)
PROXY_VARIABLES = ("grpc_proxy", "https_proxy", "http_proxy")
NO_ANSWER = (errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL)


def reachable(url: EngineUrl, within: float) -> None:
    """EngineError in one line naming `url` when nothing can answer there: the host's name
    does not resolve, or the connection is refused or has no route (a wrong port, a server
    not running). A server that accepts the connection is left to the client, however
    slowly it then answers (it is waited for as configured: `within` seconds for the
    connection itself, as the client's connect). Not tried through a proxy."""
    if any(os.environ.get(v) or os.environ.get(v.upper()) for v in PROXY_VARIABLES):
        return
    hint = "is the server running and listening there? (check --engine's host and port)"
    try:
        socket.create_connection((url.host, url.port), timeout=within).close()
    except socket.gaierror as exc:
        raise EngineError(f"connecting failed: host {url.host!r} is not known "
                          f"({exc.strerror}); check --engine's host", path=str(url),
                          key="engine_unreachable") from None
    except TimeoutError:
        raise EngineError(f"connecting failed: {url.netloc} accepted no connection within "
                          f"{within:g} s (timeout); {hint}", path=str(url),
                          key="engine_unreachable") from None
    except OSError as exc:
        if exc.errno not in NO_ANSWER:
            return  # anything else: the client's own attempt says what it is
        raise EngineError(f"connecting failed: nothing answers at {url.netloc} "
                          f"({exc.strerror or exc}); {hint}", path=str(url),
                          key="engine_unreachable") from None
