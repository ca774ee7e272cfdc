"""Milvus as a search engine for releases: connection, collection layout, aliases.

One release = two collections, named after the release (`collection_name`):

* ``kb_<tag>_<manifest sha256[:12]>`` — one row per chunk: ``num`` (primary key = the local
  chunk number), citation fields, ``verified``, ``models``, the filter fields of
  `kbtools.engine.expr`, ``sparse`` (our BM25 weights per vocabulary id, so Chinese is
  segmented by our tokenizer, never by the engine) and one dense field per embedding model
  (``v0``, ``v1``, … — HNSW, cosine, with the graph parameters of kb.toml ``[index]``).
* the same name + ``__meta`` — the release's small read-only parts as compressed text
  blobs: manifest, release.json, documents, facets, BM25 vocabulary and document
  frequencies, tokenizer dictionary, synonyms, the no-answer calibration, per-chunk
  arrays (`kbtools.engine.rows`).

Collection properties record ``kb.tag``, ``kb.serial``, ``kb.manifest``, what the release's
BM25 terms and rows were derived with — ``kb.tokens`` (the tokenizer version, which a reader
must make of a question too: `published_tokens`), ``kb.derivation`` and ``kb.tokenizer``
(the derivation rules and tokenizer libraries its index/ records: `published_derivation`,
judged as a local index/ is, `kbtools.index.selfcheck.derivation_problem`), ``kb.filters``
(the rules its rows' filter fields were stored by: `kbtools.engine.expr.filters_problem`),
``kb.base`` (the knowledge base it is of, when known: `kbtools.engine.bases`) — and, once the
rows are loaded and counted, ``kb.complete``. Readers only ever go through the alias
(`ALIAS`, ``kb_current``), which is moved in one call after a complete load, so no reader
sees a half-loaded release. pymilvus is imported lazily (extra ``kbtools[milvus]``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbtools.beneath import read_regular
from kbtools.engine.address import DEFAULT_PORT as DEFAULT_PORT
from kbtools.engine.address import MAX_PORT as MAX_PORT
from kbtools.engine.address import EngineUrl as EngineUrl
from kbtools.engine.address import milvus_name as milvus_name
from kbtools.engine.address import reachable
from kbtools.errors import EngineError, ServedError, UsageError

ALIAS = "kb_current"
PREFIX = "kb_"
META_SUFFIX = "__meta"
EXTRA = "kbtools[milvus]"
CONNECT_TIMEOUT = 10.0
# Bounds of one call, in seconds (read when the call is made). gRPC gives a call without a
# deadline none at all: a stalled server (alive, not answering) held a search for ~70 s and
# a web app's worker with it. A read (alias, listing, describing, a search, a query of
# chunk rows or vectors) answers in well under a second (p95 0.7 s on 54k chunks), so
# READ_TIMEOUT leaves room for a loaded server and still tells a user within seconds.
# Reading a release's ``__meta`` (the sources and files: tens of MB once per release) and
# loading a released collection before a search get BLOB_TIMEOUT. A write of a publish
# or rollback (a batch of BATCH rows, creating or dropping a collection, moving an alias)
# gets WRITE_TIMEOUT. LONG_CALLS get no bound: flushing, indexing and loading a
# collection take time growing with the release (minutes for millions of chunks), and
# an interrupted publish is simply published again; gRPC's keepalive ping
# (GRPC_OPTIONS) ends one on a connection that stopped answering.
READ_TIMEOUT = 15.0
BLOB_TIMEOUT = 120.0
WRITE_TIMEOUT = 120.0
RACED = object()  # what `Engine.call` returns for a failure another process caused
ALIAS_TRIES = 3  # `Engine.point_alias` against other processes moving the alias meanwhile
LONG_CALLS = ("flush", "create_index", "load_collection")
READ_CALLS = ("search", "query", "describe_alias", "list_aliases", "describe_collection",
              "has_collection", "list_collections", "list_databases", "describe_database")
# pymilvus pings an idle channel every 10 s; a gRPC server answers that with GOAWAY
# "too_many_pings" and the next call fails. Ping only during calls, at the server's pace.
GRPC_OPTIONS = {"grpc.keepalive_time_ms": 300_000, "grpc.keepalive_permit_without_calls": 0}
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
RELOADING_CALLS = ("search", "query")

# collection properties
P_TAG, P_SERIAL, P_MANIFEST, P_COMPLETE, P_PUBLISHED, P_TOKENS = (
    "kb.tag", "kb.serial", "kb.manifest", "kb.complete", "kb.published", "kb.tokens")
P_DERIVATION, P_TOKENIZER = "kb.derivation", "kb.tokenizer"
P_FILTERS = "kb.filters"  # the rules its filter fields were stored by (`expr.FILTER_RULES`)
P_BASE = "kb.base"  # the knowledge base the release is of (`kbtools.engine.bases`)


def require_client() -> None:
    """UsageError naming the extra when pymilvus is not installed, found without importing
    it (seconds under load): said before anything else of the engine, a wrong address too."""
    if importlib.util.find_spec("pymilvus") is None:
        raise UsageError(f"--engine milvus://… needs pymilvus: pip install '{EXTRA}'")


def _pymilvus() -> Any:
    # gRPC's fork handlers restart its poller in a forked child, where a subprocess's
    # close_fds has closed the poller's epoll fd: the child aborts before exec (grpc/grpc
    # #43055). kb never uses gRPC in a forked child, so it turns fork support off.
    os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
    try:
        import pymilvus
    except ImportError:
        raise UsageError(f"--engine milvus://… needs pymilvus: pip install '{EXTRA}'") from None
    # pymilvus logs every failed call with its traceback; we report each failure in one line
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
    return pymilvus


def _call_errors(pm: Any) -> tuple[type[BaseException], ...]:
    """What a pymilvus call raises: MilvusException, and gRPC's own error for a status
    pymilvus passes through unwrapped (a missed deadline, a refused token)."""
    import grpc  # a dependency of pymilvus

    return (pm.MilvusException, grpc.RpcError)


def timeout_of(method: str) -> float | None:
    """The bound of one `method` call (see READ_TIMEOUT)."""
    if method in LONG_CALLS:
        return None
    return READ_TIMEOUT if method in READ_CALLS else WRITE_TIMEOUT


MAX_TOKEN_BYTES = 4096  # a user:password or an API key is far shorter


def read_token(path: Path | None) -> str:
    """The engine token (``user:password`` or an API key) from --token-file, '' without."""
    if path is None:
        return ""
    try:
        # only a regular file, read without blocking and bounded: --token-file /dev/zero or
        # a FIFO held the command forever. utf-8-sig: a byte-order mark (Windows editors
        # write one) is not the token's.
        token = read_regular(path, MAX_TOKEN_BYTES).decode("utf-8-sig").strip()
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise UsageError(f"cannot read the token file: {why}", path=str(path)) from None
    if not token or len(token.splitlines()) > 1:  # empty: kb would connect without one
        raise UsageError(f"the token file holds {'nothing' if not token else 'several lines'}; "
                         "write one line: user:password or an API key", path=str(path))
    return token


AUTH_STATUSES = ("UNAUTHENTICATED", "PERMISSION_DENIED")
SLOW = "the engine did not answer within"  # a call's deadline passed (`_reason`)
AUTH_WORDS = ("auth", "permission den", "privilege", "credential")


def _grpc_status(exc: BaseException) -> tuple[str, str] | None:
    """The gRPC status (name, details) behind `exc`: its own, or the one pymilvus wrapped
    (a refused connection is its MilvusException "Fail connecting … server unavailable",
    caused by the server's UNAUTHENTICATED)."""
    seen: BaseException | None = exc
    visited: set[int] = set()  # pymilvus raises `e from e`: a chain can be a loop
    while seen is not None and id(seen) not in visited:
        visited.add(id(seen))
        code, details = getattr(seen, "code", None), getattr(seen, "details", None)
        if callable(code) and callable(details):  # grpc.RpcError
            return str(getattr(code(), "name", code())), str(details() or "")
        seen = seen.__cause__
    return None


def _reason(exc: BaseException, bound: float | None) -> str:
    """What went wrong, in one line: a MilvusException's message, a gRPC error's status and
    details (its str() is a multi-line dump), a missed deadline as the bound it missed,
    credentials the engine refused as such."""
    status = _grpc_status(exc)
    if status is not None and status[0] in AUTH_STATUSES:
        return f"the engine refused the credentials ({status[0]}: {status[1]})"[:300]
    if status is not None and status[0] == "DEADLINE_EXCEEDED" and bound is not None:
        return f"{SLOW} {bound:g} s (timeout)"
    if status is not None and exc.__cause__ is None:  # gRPC's own error, not wrapped
        return f"{status[0]}: {status[1]}".rstrip(": ")
    text = str(getattr(exc, "message", "") or exc)
    return text.splitlines()[0][:200] if text.strip() else type(exc).__name__


def engine_error(url: EngineUrl, exc: BaseException, doing: str,
                 bound: float | None = None) -> EngineError:
    """One line for a failure talking to the engine: which engine, what failed, what to do
    (`bound`: the call's timeout, named when it ran out)."""
    text = _reason(exc, bound)
    low = text.lower()
    if any(w in low for w in AUTH_WORDS):
        hint = ("check the engine's credentials (--token-file, --engine-token-file for kb "
                "serve: user:password or an API key) and their privileges")
        key = "engine_refused"
    elif "unimplemented" in low:  # a gRPC server answered, with no Milvus service in it
        hint = ("is --engine the port of a Milvus server's gRPC API (default 19530)? another "
                "service (or a Milvus older than its client, pymilvus, supports) answered "
                "there")
        key = "engine_unreachable"
    elif text.startswith(SLOW):  # connected, then no answer in time: busy, not gone
        hint = ("the server is up but overloaded or stalled (a large release just published "
                "may still be loading): ask again in a moment; if it persists, check the "
                "server's load and log, and the network")
        key = "engine_unreachable"
    elif "not ready" in low:  # Milvus starting or recovering: "service not ready" (code 1)
        hint = ("the engine is up but still starting or recovering: ask again in a moment "
                "(its log shows when it is ready)")
        key = "engine_unreachable"
    elif any(w in low for w in ("unavailable", "connect", "timeout", "deadline", "refused")):
        hint = "is the server running and reachable? (check --engine and the network)"
        key = "engine_unreachable"
    elif ("not exist" in low or "not found" in low) and "collection" in low:
        # a release's collection a reader or publisher was using: the alias named it, so it
        # was dropped since (a publish pruned it, another publish of it, or by hand)
        hint = ("it was dropped from the engine meanwhile (pruned by a publish, or by "
                "hand): ask again, or publish the release again")
        key = "engine_release_gone"
    elif "not exist" in low or "not found" in low:
        hint = "publish a release there first (`kb publish --engine …`)"
        key = "engine_no_release"
    else:
        hint = "see the engine's log"
        key = "engine_failed"
    return EngineError(f"{doing} failed: {text}; {hint}", path=str(url), key=key)


def _alias_raced(exc: BaseException) -> bool:
    """A failure of create_alias or alter_alias because another process created or dropped
    the alias since it was read."""
    text = str(getattr(exc, "message", "") or exc).lower()
    return "alias" in text and "collection" not in text and (
        "already exist" in text or "not exist" in text or "not found" in text)


def _released(exc: BaseException) -> bool:
    """A failure because the collection is not loaded (Milvus words it two ways), or not
    yet: a server still loading it (restarted, or told to load it) answers ``collection not
    fully loaded`` (code 103); `Engine.call` then waits for the load and asks again."""
    text = str(getattr(exc, "message", "") or exc).lower()
    return any(w in text for w in ("state 'released'", "not loaded", "not fully loaded"))


class Engine:
    """A connected Milvus database (`connect`); every call's failure becomes EngineError."""

    def __init__(self, url: EngineUrl, client: Any):
        self.url = url
        self.client = client
        self.pymilvus = _pymilvus()
        self.errors = _call_errors(self.pymilvus)

    def call(self, doing: str, method: str, *args: Any, timeout: float | None = None,
             raced: Callable[[BaseException], bool] | None = None, **kwargs: Any) -> Any:
        """`client.method(*args, **kwargs)` within `timeout` seconds (default `timeout_of`
        the method); a search or query on a published collection the engine has released
        (a restarted server that did not restore what was loaded) or is still loading
        loads it (waiting for the load) and tries once more. A failure `raced` says another process caused meanwhile returns `RACED`."""
        bound = timeout_of(method) if timeout is None else timeout
        try:
            return getattr(self.client, method)(*args, timeout=bound, **kwargs)
        except self.errors as exc:
            if raced is not None and raced(exc):
                return RACED
            if not (method in RELOADING_CALLS and args and _released(exc)):
                raise engine_error(self.url, exc, doing, bound) from None
        self.warm(args[0], BLOB_TIMEOUT)  # loaded and warm: the question gets its bound
        try:
            return getattr(self.client, method)(*args, timeout=bound, **kwargs)
        except self.errors as exc:
            raise engine_error(self.url, exc, doing, bound) from None

    def warm(self, name: str, timeout: float | None = None) -> list[str]:
        """Search collection `name` once on each of its vector fields (the fields searched,
        in schema order), so that it answers its first question at once. A loaded
        collection is not yet ready: `load_collection` returns, and reports it loaded,
        before a segment's sparse index is in memory, which milvus-lite reads on the
        field's first search (1.4 s for 8,486 chunks, then 0.01 s; the first question
        after a 54,626-chunk publish ran out of READ_TIMEOUT). A publish or rollback
        warms the collection before the alias moves to it, a reader before asking again
        after loading a released one. `timeout`: None = no bound (part of the load, as
        LONG_CALLS). Loads it first (nothing to do when it is loaded: a restarted server
        may have released it). Returns the fields searched."""
        dt = self.pymilvus.DataType
        try:
            self.client.load_collection(name, timeout=timeout)
        except self.errors as exc:
            raise engine_error(self.url, exc, f"loading {name}", timeout) from None
        desc = self.call(f"describing collection {name}", "describe_collection", name)
        searched = []
        for field in desc.get("fields", []):
            kind = field.get("type")
            if kind == dt.SPARSE_FLOAT_VECTOR:
                probe: Any = {0: 1.0}
            elif kind == dt.FLOAT_VECTOR:
                dim = int((field.get("params") or {}).get("dim", 0))
                probe = [1.0] + [0.0] * (dim - 1)
            else:
                continue
            try:
                self.client.search(name, data=[probe], anns_field=field["name"], limit=1,
                                   output_fields=[], timeout=timeout)
            except self.errors as exc:
                raise engine_error(self.url, exc, f"warming {name}", timeout) from None
            searched.append(str(field["name"]))
        return searched

    # aliases and collections ---------------------------------------------------------
    def alias_target(self, alias: str = ALIAS) -> str | None:
        """The collection `alias` points at (None when there is no such alias)."""
        try:
            info = self.client.describe_alias(alias, timeout=READ_TIMEOUT)
        except self.errors as exc:
            if "does not exist" in str(exc) or "not found" in str(exc):
                return None
            raise engine_error(self.url, exc, f"reading alias {alias}", READ_TIMEOUT) from None
        return str(info["collection_name"])

    def point_alias(self, name: str, alias: str = ALIAS) -> None:
        """Move (or create) `alias` to collection `name`. Another process may
        create, move or drop the alias between reading it and the call (two publishes of a
        release complete but not yet served): the call that fails for that reason is made
        again the other way, so the alias ends at `name` as if the two had run one after
        the other; an alias still contested after `ALIAS_TRIES` is one EngineError."""
        for _ in range(ALIAS_TRIES):
            method, doing = (("create_alias", "creating") if self.alias_target(alias) is None
                             else ("alter_alias", "moving"))
            if self.call(f"{doing} alias {alias}", method, name, alias,
                         raced=_alias_raced) is not RACED:
                return
        if self.alias_target(alias) != name:
            raise EngineError(f"pointing alias {alias} at {name} failed: other processes kept "
                              "creating or dropping it meanwhile; publish again",
                              path=str(self.url))

    def aliased(self) -> dict[str, list[str]]:
        """Every alias of the database, by the collection it points at."""
        out: dict[str, list[str]] = {}
        for alias in self.call("listing aliases", "list_aliases").get("aliases", []):
            target = self.alias_target(alias)
            if target is not None:
                out.setdefault(target, []).append(alias)
        return out

    def properties(self, name: str) -> dict[str, str]:
        desc = self.call(f"describing collection {name}", "describe_collection", name)
        return {str(k): str(v) for k, v in (desc.get("properties") or {}).items()}

    def listed_properties(self, name: str) -> dict[str, str] | None:
        """`properties` of collection `name`, listed a moment ago; None when it is gone
        since. Another process's prune or publish may drop a listed release before it is
        described (two publishes into one database at once): a prune, a rollback or a
        listing passes over it, where it failed "describing collection … does not exist"
        after its own alias had already moved."""
        desc = self.call(f"describing collection {name}", "describe_collection", name,
                         raced=self._gone(name))
        if desc is RACED:
            return None
        return {str(k): str(v) for k, v in (desc.get("properties") or {}).items()}

    def releases(self, *, properties: bool = False) -> list[dict[str, Any]]:
        """Published release collections, oldest first (`publish_order`); with
        `properties`, each with its collection's properties as read (``properties``)."""
        out = []
        names = set(self.call("listing collections", "list_collections"))
        for name in sorted(names):
            if not name.startswith(PREFIX) or name.endswith(META_SUFFIX):
                continue
            props = self.listed_properties(name)
            if props is None or P_MANIFEST not in props:
                continue
            out.append({"collection": name, "tag": props.get(P_TAG) or None,
                        "serial": int(props.get(P_SERIAL, "-1")),
                        "manifest_sha256": props[P_MANIFEST],
                        "base": props.get(P_BASE) or None,
                        # marked only once loaded and counted; its __meta must still exist
                        "complete": props.get(P_COMPLETE) == "1" and name + META_SUFFIX in names,
                        "published": _seconds(props.get(P_PUBLISHED)),
                        **({"properties": props} if properties else {})})
        return publish_order(out)

    def orphans(self) -> list[str]:
        """``__meta`` collections whose release collection is gone (a drop was interrupted
        between the two; a publish creates the release collection first)."""
        names = set(self.call("listing collections", "list_collections"))
        return sorted(n for n in names if n.startswith(PREFIX) and n.endswith(META_SUFFIX)
                      and n.removesuffix(META_SUFFIX) not in names)

    def drop(self, name: str, *, meta: bool = True) -> None:
        """Drop release collection `name` and (with `meta`) its ``__meta``; one already gone
        (dropped by another publish's prune meanwhile, or before) is not an error.

        Never one an alias points at: the aliases are read again first, and a collection
        one of them names is refused (ServedError, nothing dropped). A Milvus server refuses
        that drop itself, milvus-lite does it and leaves the alias naming nothing, so a
        reader of it fails; whoever decided the drop (a prune, a publish taking over an
        interrupted load) read the aliases earlier, and another process may have moved one
        since."""
        names = (name, name + META_SUFFIX) if meta else (name,)
        served = self.aliased()
        for n in names:
            if n in served:
                aliases = tuple(sorted(served[n]))
                raise ServedError(f"collection {n} is served by alias {', '.join(aliases)}, so "
                                  "it was not dropped; point the alias at another release "
                                  "first (`kb rollback --engine …`)", collection=n,
                                  aliases=aliases, path=str(self.url))
        for n in names:
            # servers before Milvus 2.3 refuse a missing one: gone is what the drop wanted
            self.call(f"dropping {n}", "drop_collection", n, raced=self._gone(n))

    def _gone(self, name: str) -> Callable[[BaseException], bool]:
        """Whether collection `name` is gone now (whatever the failure was)."""
        return lambda _exc: not self.call("checking a collection", "has_collection", name)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not an error
            pass


def _seconds(text: str | None) -> float:
    try:
        return float(text or 0)
    except ValueError:
        return 0.0


def publish_order(releases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`releases` oldest first: signed releases by serial; a local build (serial -1, no
    order of its own) right after the newest signed release published before it, local
    builds among themselves by publish time. So "older" means published before, and a
    signed release keeps its place by serial when it is published again."""
    signed = [(r["published"], r["serial"]) for r in releases
              if r["serial"] >= 0 and r["complete"]]

    def key(r: dict[str, Any]) -> tuple[int, float, str]:
        if r["serial"] >= 0:
            return r["serial"], r["published"], r["collection"]
        before = [s for t, s in signed if t <= r["published"]]
        return max(before, default=-1), r["published"], r["collection"]

    return sorted(releases, key=key)


def _create_database(client: Any, db: str) -> None:
    """Create `db`; one another publisher created meanwhile is as good (two first publishes
    into a new database at once: the second's create failed "already exists")."""
    try:
        client.create_database(db, timeout=CONNECT_TIMEOUT)
    except Exception:
        if db not in client.list_databases(timeout=CONNECT_TIMEOUT):
            raise


def connect(url: EngineUrl, token: str = "", *, create_db: bool = False) -> Engine:
    """Connect to `url` (EngineError naming the engine when it is unreachable: at once
    when nothing listens there, `reachable`)."""
    require_client()
    reachable(url, CONNECT_TIMEOUT)
    pm = _pymilvus()
    kwargs: dict[str, Any] = {"uri": url.uri, "timeout": CONNECT_TIMEOUT,
                              "grpc_options": GRPC_OPTIONS}
    if token:
        kwargs["token"] = token
    try:
        client = pm.MilvusClient(**kwargs)
        if url.db != "default":
            if url.db not in client.list_databases(timeout=CONNECT_TIMEOUT):
                if not create_db:
                    raise EngineError(f"database {url.db!r} does not exist; publish a release "
                                      "there first (`kb publish --engine …`)", path=str(url),
                                      key="engine_no_release")
                _create_database(client, url.db)
            client.use_database(url.db, timeout=CONNECT_TIMEOUT)
    except EngineError:
        raise
    except Exception as exc:  # MilvusException, or grpc's own types when nothing listens
        err = engine_error(url, exc, "connecting", CONNECT_TIMEOUT)
        if not token and err.key == "engine_refused":  # none given: the likely cause, said
            err = engine_error(url, exc, "connecting without a token", CONNECT_TIMEOUT)
        raise err from None
    return Engine(url, client)


def published_tokens(props: dict[str, str], manifest: dict[str, Any]) -> str | None:
    """The tokenizer version of a published release's BM25 terms: its collection's
    ``kb.tokens``; for a release published before that was recorded, its manifest's word
    (the tokenizer's version string ends with it; None when it does not)."""
    if P_TOKENS in props:
        return props[P_TOKENS]
    last = str(manifest.get("tokenizer", {}).get("version", "")).rsplit(";", 1)[-1]
    return last if last.startswith("v") and last[1:].isdigit() else None


def published_derivation(props: dict[str, str], manifest: dict[str, Any]) -> dict[str, str]:
    """What a published release records of the rules its BM25 terms and rows were derived by,
    as a store's info table records them (``tokens``, ``derivation``, ``tokenizer``) for
    `kbtools.index.selfcheck.derivation_problem`. A release published before a record
    existed has none of ``derivation`` (it was "1") or ``tokenizer`` (not known: accepted,
    as a local index/ without it is)."""
    info = {}
    if (tokens := published_tokens(props, manifest)) is not None:
        info["tokens"] = tokens
    if P_DERIVATION in props:
        info["derivation"] = props[P_DERIVATION]
    if props.get(P_TOKENIZER):
        info["tokenizer"] = props[P_TOKENIZER]
    return info


ALIAS_WORDS = 40  # characters of a name's ASCII words kept in its alias (`alias_name`)
ALIAS_HASH = 10  # hex digits of the name's sha256 in its alias


def alias_name(name: str) -> str:
    """The Milvus alias of ``--alias NAME``: `name` itself when a Milvus server takes it
    (`milvus_name`); any other name — a knowledge base's own, 农业知识, 设备维护, or
    kb-staging — as ``kb_`` + its ASCII letters, digits and _ (other runs as one _, at most
    `ALIAS_WORDS`) + ``_`` + `ALIAS_HASH` hex digits of the sha256 of its NFC form (as
    macOS may type it decomposed). Distinct names get distinct aliases (a Chinese name's
    ASCII part is empty: the hash tells them apart), and every command of every process
    given the name reads the same alias."""
    if milvus_name(name):
        return name
    norm = unicodedata.normalize("NFC", name)
    words = "_".join(_NAME_UNSAFE.sub(" ", norm).split())[:ALIAS_WORDS].strip("_")
    digest = hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:ALIAS_HASH]
    return f"{PREFIX}{words}_{digest}" if words else f"{PREFIX}{digest}"


def check_alias(alias: str) -> str:
    """The Milvus alias of ``--alias`` (`alias_name`), before anything connects; a blank
    one is a UsageError."""
    if not alias.strip():
        raise UsageError("bad --alias: give a name (e.g. --alias crops_north, or the "
                         "knowledge base's own name, --alias 农业知识)")
    return alias_name(alias.strip())


def collection_name(tag: str | None, manifest_sha256: str) -> str:
    """The collection of one release: tag (when released) and manifest hash."""
    label = _NAME_UNSAFE.sub("_", tag)[:100] if tag else "build"
    return f"{PREFIX}{label}_{manifest_sha256[:12]}"


def now() -> str:
    return f"{time.time():.6f}"


def connect_url(text: str, token_file: Path | None = None, *,
                create_db: bool = False) -> Engine:
    """Parse ``--engine`` and connect, with the token of ``--token-file`` (if any)."""
    return connect(EngineUrl.parse(text), read_token(token_file), create_db=create_db)
