"""A real Milvus server for the engine tests: `milvus-lite server` on a free loopback port,
started once per test session (per xdist worker) and stopped at the end."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.engine import expr
from kbtools.engine.milvus import META_SUFFIX, P_MANIFEST, Engine, connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.rows import blob_rows
from kbtools.errors import EngineError
from kbtools.query.filter_text import Between, Want
from tests.hostile import make_repo
from tests.kbfixtures import REPO
from tests.ports import free_port

START_TIMEOUT = 60.0



def answering(url: str, within: float = 60.0) -> None:
    """Wait until the restarted server at `url` answers: this process's gRPC channel to the
    port retries a server it saw die only after a back-off (about 2 s)."""
    deadline = time.monotonic() + within
    while True:
        try:
            connect_url(url).close()
            return
        except EngineError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


class MilvusLite:
    """One `milvus-lite server` process (the binary next to this Python).

    Started when its log says it listens on its port, not when the port answers: a port
    `free_port` found free can be taken by another process (the other pytest worker's
    server) before milvus-lite binds it; the server then exits while the port answers for
    the other one. Such a start is tried again on another port, or after a pause on the same
    one when `port` was given (a restart on the port a client knows: `free_port`'s ports are
    this worker's own, so what holds it is the stopped server's last connections)."""

    def __init__(self, data_dir: Path, port: int | None = None):
        exe = Path(sys.executable).parent / "milvus-lite"  # the venv's, else the one on PATH
        exe = exe if exe.is_file() else Path(shutil.which("milvus-lite") or exe)
        for attempt in range(5):
            self.port = port or free_port()
            if port and attempt:
                time.sleep(1.0)
            log_path = data_dir.parent / f"milvus-{self.port}.log"
            self.log = log_path.open("wb")
            self.proc = subprocess.Popen(
                [str(exe), "server", "--data-dir", str(data_dir), "--host", "127.0.0.1",
                 "--port", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT)
            said = f"listening on 127.0.0.1:{self.port}".encode()
            deadline = time.monotonic() + START_TIMEOUT
            while self.proc.poll() is None and time.monotonic() < deadline:
                if said in log_path.read_bytes() and _listening(self.port):
                    return
                time.sleep(0.1)
            self.stop()
        raise RuntimeError(f"milvus-lite did not start on port {self.port}")

    def answer(self, name: str, request: bytes) -> bytes | None:
        """The relay's own answer to a call of method `name` (its serialized response),
        or None to pass it to the server. Called in call order, one call at a time."""
        return None

    def url(self, db: str = "default") -> str:
        return f"milvus://127.0.0.1:{self.port}/{db}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def milvus(tmp_path_factory) -> Iterator[MilvusLite]:
    """One server per test module that imports this fixture, stopped after the module: an
    imported fixture is each module's own, so a session scope kept every module's server
    (~20, 0.2–0.5 GB each) running to the end of the suite."""
    server = MilvusLite(tmp_path_factory.mktemp("milvus") / "data")
    yield server
    server.stop()


def replace_manifest(eng: Engine, collection: str, manifest: dict[str, Any], *,
                     same_hash: bool = True) -> None:
    """Store `manifest` with a published release, as a release built differently (another
    model) would have it; with ``same_hash=False`` the collection keeps the old manifest
    hash (a damaged release)."""
    text = json.dumps(manifest)
    meta = collection + META_SUFFIX
    eng.client.delete(meta, filter='part == "manifest"')
    eng.client.insert(meta, blob_rows({"manifest": text}))
    if same_hash:
        eng.client.alter_collection_properties(
            collection, {P_MANIFEST: hashlib.sha256(text.encode("utf-8")).hexdigest()})


@contextmanager
def facts_collection(server: MilvusLite, db: str, name: str,
                     rows: Sequence[tuple[dict[str, Any], bool]]) -> Iterator[Engine]:
    """An engine connected to database `db` of `server`, holding collection `name` (made
    anew) with one loaded row per (front-matter facts, verified) of `rows`: ``num`` (its
    position), ``verified``, the filter fields `--where` expressions test
    (`expr.filter_fields` of `expr.chunk_facts(facts, "doc<num>.md", "section", verified)`)
    and a 2-d vector. For tests that compare a filter's rows in Milvus with the local
    mask's (`kbtools.query.filters`); closed at the end."""
    engine = connect_url(server.url(db), create_db=True)
    try:
        pm = engine.pymilvus
        schema = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("num", pm.DataType.INT64, is_primary=True)
        schema.add_field("verified", pm.DataType.BOOL)
        for field in (expr.EQ_FIELD, expr.NUM_FIELD, expr.ORD_FIELD):
            schema.add_field(field, pm.DataType.JSON)
        schema.add_field("v", pm.DataType.FLOAT_VECTOR, dim=2)
        index = engine.client.prepare_index_params()
        index.add_index("v", index_type="FLAT", metric_type="L2")
        if engine.client.has_collection(name):
            engine.client.drop_collection(name)
        engine.client.create_collection(name, schema=schema, index_params=index)
        engine.client.insert(name, [
            {"num": i, "verified": verified, "v": [1.0, 0.0], **expr.filter_fields(
                expr.chunk_facts(facts, f"doc{i}.md", "section", verified))}
            for i, (facts, verified) in enumerate(rows)])
        engine.client.load_collection(name)
        yield engine
    finally:
        engine.close()


def facts_fixture(db: str, facts: Sequence[dict[str, Any]], name: str | None = None) -> Any:
    """A module-scoped fixture of the `facts_collection` of `facts` (none verified) in
    database `db` of the module's `milvus`, as collection `name` (else `db`): what a test
    module assigns (``coll = facts_fixture("ranges", FACTS)``) to compare `engine_rows`
    with `local_rows` on the same facts."""

    @pytest.fixture(scope="module")
    def collection(milvus: MilvusLite) -> Iterator[Engine]:
        with facts_collection(milvus, db, name or db, [(f, False) for f in facts]) as engine:
            yield engine
    return collection


def reads_dates(facts: Sequence[dict[str, Any]], key: str) -> bool:
    """Whether a filter on `key` reads dates over documents of front matter `facts`, as
    `kbtools.query.filter_fields.key_reads_dates` decides it for an index's documents."""
    from kbtools.query.filter_kinds import reads_dates as field_reads_dates

    def members(value: Any) -> Iterator[Any]:
        if isinstance(value, list):
            for v in value:
                yield from members(v)
        elif value is not None:
            yield value
    return key not in expr.CHUNK_FACTS and field_reads_dates(
        str(v) for f in facts for v in members(f.get(key)))


def local_rows(facts: Sequence[dict[str, Any]], key: str, op: str, want: Want) -> list[int]:
    """The positions of `facts` whose `key` the local filters match (`--where key op want`),
    as `kbtools.query.filters` makes a filter's mask: each value a date read as the field's
    values have it (`reads_dates`); of several values, ``=`` any of them, ``!=`` none; a
    listed range (`Between`: ``5–10kW`` of ``5–10kW,20kW``) its bounds, each read so."""
    from kbtools.query.filter_kinds import wanted
    from kbtools.query.filters import value_matches
    if not isinstance(want, str):
        each = [set(local_rows(facts, key, op, w)) for w in want]
        return sorted(set.union(*each) if op == "=" else set.intersection(*each))
    if isinstance(want, Between):
        inside = set.intersection(*(set(local_rows(facts, key, bound, end))
                                    for bound, end in want.bounds()))
        return sorted(inside if op == "=" else set(range(len(facts))) - inside)
    read = wanted(want, reads_dates(facts, key))
    return [i for i, f in enumerate(facts) if value_matches(key, f.get(key), op, read)]


def rows_alike(engine: Engine, name: str, facts: Sequence[dict[str, Any]],
               where: str) -> list[int]:
    """The positions of `facts` that filter `where` keeps, after asserting that the local
    filters and the Milvus expression of each of its conditions keep the same ones
    (collection `name` of `engine`, a `facts_collection` of `facts`)."""
    from kbtools.query.filter_text import parse_where

    conditions = parse_where([where])
    local = [set(local_rows(facts, k, op, w)) for k, op, w in conditions]
    remote = [set(engine_rows(engine, name, k, op, w, facts)) for k, op, w in conditions]
    assert local == remote, where
    return sorted(set.intersection(*local))


def engine_rows(engine: Engine, name: str, key: str, op: str, want: Want,
                facts: Sequence[dict[str, Any]] = ()) -> list[int]:
    """The `num`s of collection `name` (a `facts_collection`) that the Milvus expression of
    `--where key op want` selects, sorted: what `local_rows` is compared with (given the
    collection's `facts`, a date read as `local_rows` reads it; else as in a field of dates)."""
    dates = reads_dates(facts, key) if facts else True
    got = engine.client.query(name, filter=expr.condition(key, op, want, dates),
                              output_fields=["num"], consistency_level="Strong")
    return sorted(int(r["num"]) for r in got)


def published_repo(server: MilvusLite, root: Path, db: str, docs: dict[str, str],
                   keys: Iterable[str]) -> tuple[Path, str]:
    """A repository at `root` (`tests.hostile.make_repo`: its ``good`` document and
    `docs`) whose front-matter schema declares `keys` (any YAML value), built, and its
    release published into database `db` of `server`: (its dist/, the engine URL). For
    tests that run one filter on the local index and on the engine and compare."""
    schema_file = REPO / "kbtools" / "data" / "schemas" / "frontmatter.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["properties"].update({key: {} for key in keys})
    repo = make_repo(root, docs={**docs, "schemas/frontmatter.schema.json":
                                 json.dumps(schema, ensure_ascii=False)})
    build(load_config(repo), BuildOptions(progress=False))
    url = server.url(db)
    engine = connect_url(url, create_db=True)
    try:
        publish(engine, check_release(repo / "dist"))
    finally:
        engine.close()
    return repo / "dist", url


class RecordingRelay:
    """A gRPC relay on a free loopback port in front of a real server (`target`), passing
    every call through and recording it in order: ``calls`` (method name, request bytes).
    What a test reads to see which calls a command made, and in what order. A subclass
    answers some calls itself, as a server in another state would (`answer`)."""

    def __init__(self, target: str):
        import threading
        from concurrent import futures

        import grpc

        self.calls: list[tuple[str, bytes]] = []
        self._lock = threading.Lock()
        self._channel = grpc.insecure_channel(target)
        self._server = grpc.server(futures.ThreadPoolExecutor(4), handlers=[self])
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()

    def service(self, details: Any) -> Any:
        import grpc

        method = details.method
        forward = self._channel.unary_unary(method)

        def handle(request: bytes, context: Any) -> bytes:
            name = method.rsplit("/", 1)[-1]
            with self._lock:
                self.calls.append((name, request))
                answered = self.answer(name, request)
            if answered is not None:
                return answered
            meta = [(k, v) for k, v in context.invocation_metadata() if not k.startswith(":")]
            try:
                return forward(request, metadata=meta)  # type: ignore[no-any-return]
            except grpc.RpcError as exc:  # the server's own status, as the client expects it
                context.abort(exc.code(), exc.details())  # (UNIMPLEMENTED: its fallbacks)
                raise

        return grpc.unary_unary_rpc_method_handler(handle)

    def answer(self, name: str, request: bytes) -> bytes | None:
        """The relay's own answer to a call of method `name` (its serialized response),
        or None to pass it to the server. Called in call order, one call at a time."""
        return None

    def url(self, db: str = "default") -> str:
        return f"milvus://127.0.0.1:{self.port}/{db}"

    def close(self) -> None:
        self._server.stop(None)
        self._channel.close()


def published_pumps(server: MilvusLite, root: Path, db: str,
                    pumps: dict[str, dict[str, str]]) -> tuple[Path, str]:
    """`published_repo` of one short document per pump, ``knowledge/NAME.md`` for each
    NAME of `pumps`, whose front matter gives its fields (each value as YAML text, e.g.
    ``"25℃"`` or ``'"3000-1"'``) and whose text is the same seal replacement: a filter on
    those fields alone decides which of them a search finds."""
    docs = {f"knowledge/{name}.md": (
        f"---\ntitle: {name}\ncategory: engineering\nproject: demo\nsource: test\n"
        "author: alice@example.org\ntimestamp: \"2024-05-01T00:00:00Z\"\nverified: false\n"
         + "".join(f"{key}: {value}\n" for key, value in fields.items())
        + f"---\n\n# {name}\n\nSeal replacement of the pump {name}: drain it, then fit "
        "the seal.\n") for name, fields in pumps.items()}
    keys = dict.fromkeys(key for fields in pumps.values() for key in fields)
    return published_repo(server, root, db, docs, keys)


@pytest.fixture(scope="module")
def relay(milvus: MilvusLite, request: pytest.FixtureRequest) -> Iterator[RecordingRelay]:
    """A relay in front of the session's server, one per test module: a `RecordingRelay`,
    or the subclass the module names as ``RELAY`` (one that answers some calls itself)."""
    kind: type[RecordingRelay] = getattr(request.module, "RELAY", RecordingRelay)
    r = kind(f"127.0.0.1:{milvus.port}")
    yield r
    r.close()
