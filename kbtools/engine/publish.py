"""`kb publish --engine`, `kb rollback --engine`: releases into Milvus, behind an alias.

`publish` verifies the release first (every manifest-listed file by size and sha256, the
manifest hash named by release.json, the signature when keys are configured, no older
than the published release — nothing is written to the engine before that), then loads
the release into its own collections (`kbtools.engine.milvus`), builds the indexes, loads
them, checks the row count against the release, marks the collection complete and only
then moves the alias in one call. Re-publishing a release already published is a no-op;
whatever an interrupted publish left of a release (`_complete` says it is not) is dropped
and loaded again. Old releases are dropped beyond `keep` (never one an alias serves).
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.engine import expr
from kbtools.engine.cache import encode_files
from kbtools.engine.milvus import (
    ALIAS,
    META_SUFFIX,
    P_COMPLETE,
    P_DERIVATION,
    P_MANIFEST,
    P_PUBLISHED,
    P_SERIAL,
    P_TAG,
    P_TOKENIZER,
    P_TOKENS,
    WRITE_TIMEOUT,
    Engine,
    collection_name,
    now,
    published_derivation,
)
from kbtools.engine.remote import read_parts, release_label
from kbtools.errors import EngineError, IndexLoadError, KbError
from kbtools.fsutil import read_beneath
from kbtools.index import synonyms
from kbtools.index.layout import (
    MANIFEST,
    RELEASE_JSON,
    RELEASE_SIG,
    ReleaseLayout,
    device_of_release,
)
from kbtools.index.manifest import MAX_MANIFEST_BYTES, parse_manifest, verify_files
from kbtools.index.reader import KbIndex, open_index, resolve_index_path
from kbtools.index.selfcheck import derivation_problem
from kbtools.index.tokenize import TOKENS_VERSION
from kbtools.query import anchors, neighbours, pages
from kbtools.ship.signing import load_public, verify
from kbtools.ship.trust import stored_keys
from kbtools.ship.verify import MAX_RELEASE_JSON_BYTES

BATCH = 256
BLOB_CHARS = 60_000
VARCHAR_MAX = 65_535
Progress = Callable[[str], None]


@dataclass(frozen=True)
class CheckedRelease:
    """A release directory that passed `check_release`."""

    root: Path
    manifest_sha256: str
    manifest_text: str
    release_text: str
    tag: str | None
    serial: int  # -1: a local build (no release.json)
    signed_by: str | None


def check_release(path: Path | None, trusted: Sequence[Path] = ()) -> CheckedRelease:
    """Verify the release at `path` (dist/, a release dir or a device dir) before any write:
    manifest.json and release.json readable and well formed, manifest-listed files,
    release.json ↔ manifest hash, and the signature when keys are given or pinned on the
    device the release belongs to (EngineError naming the release otherwise)."""
    root = resolve_index_path(path)
    layout = ReleaseLayout(root)
    where = str(root)
    try:
        mbytes = read_beneath(root, MANIFEST, MAX_MANIFEST_BYTES)
        manifest = parse_manifest(mbytes, str(layout.manifest))
    except OSError as exc:
        raise EngineError(f"{MANIFEST} unreadable ({exc.strerror or exc}); refusing to "
                          "publish", path=where) from None
    except IndexLoadError as exc:
        raise EngineError(f"{exc.message}; refusing to publish", path=exc.path) from None
    problems = verify_files(root, manifest)
    if problems:
        raise EngineError(f"release does not match its manifest ({len(problems)} problems, "
                          f"first: {problems[0]}); refusing to publish", path=where)
    mhash = hashlib.sha256(mbytes).hexdigest()
    rel_bytes, rel = _release_json(layout)
    if rel and rel.get("manifest_sha256") != mhash:
        raise EngineError(f"{MANIFEST} does not match the hash in {RELEASE_JSON}; refusing "
                          "to publish", path=where)
    keys = [load_public(p) for p in trusted]
    device = device_of_release(root) or device_of_release(root.resolve())
    if device is not None:
        keys += stored_keys(device)  # a device's pinned keys always apply
    signer = None
    if keys:
        if not rel:
            raise EngineError(f"keys are configured but this is an unsigned build (no "
                              f"{RELEASE_JSON}); publish a signed release", path=where)
        sig = layout.release_sig.read_bytes() if layout.release_sig.is_file() else None
        try:
            signer = verify(rel_bytes, sig, keys, where=f"{where}/{RELEASE_SIG}")
        except KbError as exc:  # SyncError from signing, worded for sync
            raise EngineError(f"signature check failed: {exc.message}; refusing to publish",
                              path=where) from None
    return CheckedRelease(root, mhash, mbytes.decode("utf-8"), rel_bytes.decode("utf-8"),
                          rel.get("tag"), rel.get("serial", -1), signer)


def _release_json(layout: ReleaseLayout) -> tuple[bytes, dict[str, Any]]:
    """release.json's bytes and object (b"" and {} for a local build, which has none):
    a JSON object in UTF-8 whose ``tag`` is a string and ``serial`` a number ≥ 0."""
    path = layout.release_json
    if not (path.exists() or path.is_symlink()):
        return b"", {}
    why = None
    try:
        data = read_beneath(layout.root, RELEASE_JSON, MAX_RELEASE_JSON_BYTES)
        rel = json.loads(data.decode("utf-8"))
    except OSError as exc:
        why = exc.strerror or str(exc)
    except (UnicodeDecodeError, ValueError) as exc:
        why = f"not JSON: {exc}"
    else:
        serial = rel.get("serial") if isinstance(rel, dict) else None
        if not isinstance(rel, dict):
            why = "not a JSON object"
        elif not isinstance(rel.get("tag"), str) or not rel["tag"]:
            why = "its tag is not a name"
        elif not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
            why = "its serial is not a number"
        else:
            return data, rel
    raise EngineError(f"{RELEASE_JSON} is corrupted ({why}); refusing to publish",
                      path=str(path))


# ----------------------------------------------------------------------- rows and blobs

@dataclass(frozen=True)
class SparseRows:
    """Per chunk, {vocabulary id: BM25 weight} — the bm25s score matrix (one row per term)
    transposed to one row per chunk, kept as arrays (`row(num)` makes one dict). A
    question's sparse vector is 1.0 per known term, so the inner product is its score."""

    bounds: np.ndarray  # chunk num → its slice of terms/weights
    terms: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, index: KbIndex) -> SparseRows:
        n = index.store.count()
        ret = index.bm25.retriever
        if ret is None:
            return cls(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                       np.zeros(0, dtype=np.float32))
        s = ret.scores
        indptr = np.asarray(s["indptr"])
        terms = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        docs = np.asarray(s["indices"])
        order = np.argsort(docs, kind="stable")
        return cls(np.searchsorted(docs[order], np.arange(n + 1)), terms[order],
                   np.asarray(s["data"], dtype=np.float32)[order])

    def row(self, num: int) -> dict[int, float]:
        a, b = int(self.bounds[num]), int(self.bounds[num + 1])
        return {int(t): float(w) for t, w in zip(self.terms[a:b], self.weights[a:b], strict=True)
                if w > 0}


def blob_rows(parts: dict[str, Any]) -> list[dict[str, Any]]:
    """Meta collection rows: each part as zlib-compressed JSON, base64, in pieces."""
    rows = []
    for part, value in parts.items():
        raw = json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")
        text = base64.b64encode(zlib.compress(raw, 6)).decode("ascii")
        pieces = [text[i:i + BLOB_CHARS] for i in range(0, len(text), BLOB_CHARS)] or [""]
        rows += [{"key": f"{part}/{i:06d}", "part": part, "seq": i, "data": piece,
                  "pad": [1.0, 0.0]} for i, piece in enumerate(pieces)]
    return rows


def meta_parts(index: KbIndex, checked: CheckedRelease, fields: dict[str, str]) -> dict[str, Any]:
    """Everything a reader needs besides the chunk rows (see `kbtools.engine.remote`)."""
    ret = index.bm25.retriever
    indptr = np.asarray(ret.scores["indptr"]) if ret is not None else np.zeros(1, dtype=int)
    table = index.chunk_table()
    return {
        "manifest": checked.manifest_text,
        "release": checked.release_text,
        "docs": index.docs(),
        "facets": {k: sorted(v) for k, v in index.facets().items()},
        "vocab": index.bm25.vocab,
        "df": np.diff(indptr).tolist(),
        "num_docs": int(ret.scores["num_docs"]) if ret is not None else 0,
        "dictionary": list(index.bm25.tok.words),
        "synonyms": synonyms.dump(index.synonyms()),
        "no_answer": index.no_answer_record(),  # the release's own no-answer calibration
        "pages": page_parts(index),
        "links": link_parts(index),
        "chunk_table": {"doc": table.doc.tolist(), "kind": table.kind.tolist(),
                        "models": table.models.tolist(), "verified": table.verified.tolist(),
                        "parent": table.parent.tolist()},
        "fields": fields,
        "count": index.store.count(),
        "sources": _sources(index),
        "files": encode_files(checked.root, index.manifest),
        "verified": {"signed_by": checked.signed_by,
                     "verified_at": datetime.now(UTC).isoformat(timespec="seconds")},
    }


def page_parts(index: KbIndex) -> dict[str, str]:
    """Per model, the release's page vectors (`kbtools.query.pages`) as base64 of their
    .npy bytes: the engine's searches weigh pages as the local files do."""
    return {model: base64.b64encode(pages.to_bytes(pages.page_vectors(index, model))
                                    ).decode("ascii")
            for model in sorted(index.manifest.get("models", {}))}


def link_parts(index: KbIndex) -> dict[str, Any]:
    """The release's link graph and anchor texts as `KbIndex.published_links` returns
    them: the engine's searches follow links and read anchors as the local files do."""
    return {"graph": [sorted(g) for g in neighbours.link_graph(index)],
            "anchors": anchors.anchor_texts(index)}


def _sources(index: KbIndex) -> dict[str, str]:
    """The release's Markdown sources by document (MCP `read` serves sections of them)."""
    out = {}
    for d in index.docs():
        path = index.source_path(d["doc"])
        if path.is_file() and not path.is_symlink():
            out[d["doc"]] = path.read_text(encoding="utf-8", errors="replace")
    return out


def _schema(engine: Engine, dims: dict[str, int]) -> Any:
    pm = engine.pymilvus
    dt = pm.DataType
    s = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("num", dt.INT64, is_primary=True)
    s.add_field("id", dt.VARCHAR, max_length=256)
    s.add_field("doc", dt.VARCHAR, max_length=4096)
    s.add_field("kind", dt.VARCHAR, max_length=256)
    s.add_field("line_start", dt.INT64)
    s.add_field("line_end", dt.INT64)
    s.add_field("verified", dt.BOOL)
    s.add_field("models", dt.ARRAY, element_type=dt.VARCHAR, max_capacity=64, max_length=256)
    s.add_field("row", dt.JSON)
    s.add_field(expr.EQ_FIELD, dt.JSON)
    s.add_field(expr.ORD_FIELD, dt.JSON)
    s.add_field("sparse", dt.SPARSE_FLOAT_VECTOR)
    for field, dim in dims.items():
        s.add_field(field, dt.FLOAT_VECTOR, dim=dim)
    return s


def _meta_schema(engine: Engine) -> Any:
    pm = engine.pymilvus
    dt = pm.DataType
    s = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("key", dt.VARCHAR, is_primary=True, max_length=256)
    s.add_field("part", dt.VARCHAR, max_length=64)
    s.add_field("seq", dt.INT64)
    s.add_field("data", dt.VARCHAR, max_length=VARCHAR_MAX)
    s.add_field("pad", dt.FLOAT_VECTOR, dim=2)  # Milvus wants a vector field; never searched
    return s


ROW_FIELDS = ("heading_path", "text", "embed_text", "links", "extra", "last_commit",
              "last_author", "last_changed", "verification")


def chunk_rows(index: KbIndex, fields: dict[str, str]) -> Iterator[list[dict[str, Any]]]:
    """The chunk rows to insert, in batches of BATCH."""
    n = index.store.count()
    sparse = SparseRows.of(index)
    metas = {d["doc"]: d["metadata"] for d in index.docs()}
    table = index.chunk_table()
    parent_of, models_of = table.parent, table.models
    for start in range(0, n, BATCH):
        nums = list(range(start, min(n, start + BATCH)))
        rows = index.store.chunks(nums)
        vecs: dict[str, dict[int, list[float]]] = {}
        for model, field in fields.items():
            have = [i for i in nums if model in rows[i]["models"].split(",")]
            # a chunk sharing its section's vector is stored with that vector, not a
            # placeholder: thousands of identical placeholders degrade the HNSW graph (its
            # searches still exclude the chunk: kbtools.query.inherit adds it)
            lent = [i for i in nums if parent_of[i] >= 0
                    and model in models_of[parent_of[i]].split(",")]
            keys = have + [int(parent_of[i]) for i in lent]
            got: Any = np.asarray(index.vectors(model).get(np.array(keys, dtype=np.uint64)),
                             dtype=np.float32).reshape(len(keys), -1) if keys else []
            vecs[field] = {i: v.tolist() for i, v in zip(have + lent, got, strict=True)}
            if len(vecs[field]) < len(nums):
                spare = placeholders(start, len(nums), int(index.vectors(model).ndim))
                vecs[field].update((i, spare[i - start].tolist()) for i in nums
                                   if i not in vecs[field])
        batch = []
        for i in nums:
            r = rows[i]
            models = [m for m in r["models"].split(",") if m]
            facts = expr.chunk_facts(metas.get(r["doc"], {}), r["doc"], r["kind"],
                                     bool(r["verified"]))
            row: dict[str, Any] = {
                "num": i, "id": r["id"], "doc": r["doc"], "kind": r["kind"],
                "line_start": int(r["line_start"]), "line_end": int(r["line_end"]),
                "verified": bool(r["verified"]), "models": models,
                "row": {k: r.get(k) for k in ROW_FIELDS},
                "sparse": sparse.row(i) or {0: 0.0},
                **expr.filter_fields(facts)}
            for field, have_vec in vecs.items():
                row[field] = have_vec[i]
            batch.append(row)
        yield batch


def placeholders(start: int, count: int, dim: int) -> np.ndarray:
    """Unit vectors for chunks `start` … `start + count - 1` that have no vector of a model
    (another language's chunks; searches exclude them): each its own random direction, the
    same on every publish. One vector shared by all of them made hundreds of identical
    nodes in the HNSW graph, whose links then led only to each other: a search filtered to
    the model's chunks found none of them (an English question got no vector candidates
    once most chunks were Chinese)."""
    mat = np.random.default_rng([start, dim]).standard_normal((count, dim))
    return np.asarray(mat / np.linalg.norm(mat, axis=1, keepdims=True), dtype=np.float32)


# --------------------------------------------------------------------------- publishing

@dataclass(frozen=True)
class PublishResult:
    engine: str
    collection: str
    tag: str | None
    serial: int
    chunks: int
    changed: bool  # False: this release was already published and served
    previous: str | None
    pruned: tuple[str, ...] = ()
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, pruned=list(self.pruned))


def publish(engine: Engine, checked: CheckedRelease, *, keep: int = 5, alias: str = ALIAS,
            progress: Progress | None = None) -> PublishResult:
    """Load `checked` into `engine` and point `alias` at it (see the module docstring)."""
    import time

    t0 = time.perf_counter()
    say = progress or (lambda _m: None)
    index = open_index(checked.root)  # refuses an index/ derived by other rules
    try:
        derived = _derived_props(index)
        name = _release_name(engine, checked, derived)
        current = engine.alias_target(alias)
        cur = engine.properties(current) if current else {}
        if current == name and cur.get(P_COMPLETE) == "1":
            return PublishResult(str(engine.url), name, checked.tag, checked.serial,
                                 0, False, current)
        _refuse_older(engine, checked, cur)
        count = index.store.count()
        if not _complete(engine, name):
            engine.drop(name)  # what an interrupted publish left of it, if anything
            _load(engine, index, checked, name, derived, say)
        _check_count(engine, name, count)
    finally:
        index.close()
    engine.point_alias(name, alias)
    say(f"alias {alias} -> {name}")
    pruned = prune(engine, keep, alias)
    return PublishResult(str(engine.url), name, checked.tag, checked.serial, count, True,
                         current, tuple(pruned), round(time.perf_counter() - t0, 3))


def _release_name(engine: Engine, checked: CheckedRelease, derived: dict[str, str]) -> str:
    """The collection `checked` goes into: `collection_name`, unless that one is complete
    with rows derived by other rules than `derived` (the store info of the release's index/
    as this kb opened it: published by a kb of another tokenizer, other tokenizer libraries
    or other derivation rules, `kbtools.index.selfcheck.derivation_problem`): then the same
    name ending with this kb's tokenizer version, or if that one is stale too with a digest
    of `derived`, so the release is loaded anew with the terms its readers make, not found
    "already published". (`publish` opens the release with `open_index`, which refuses an
    index/ derived by other rules than this kb's.)"""
    name = collection_name(checked.tag, checked.manifest_sha256)
    digest = hashlib.sha256(json.dumps(derived, sort_keys=True).encode()).hexdigest()[:8]
    manifest = json.loads(checked.manifest_text)
    for candidate in (name, f"{name}_{TOKENS_VERSION}", f"{name}_{TOKENS_VERSION}_{digest}"):
        if not _complete(engine, candidate) or _derivation_problem(
                engine, candidate, manifest) is None:
            return candidate
    return f"{name}_{TOKENS_VERSION}_{digest}"  # stale though named for `derived`: reload


def _derivation_problem(engine: Engine, collection: str, manifest: dict[str, Any],
                        tag: str | None = None) -> str | None:
    """Why the published `collection` is not derived by this kb's rules (None: it is)."""
    return derivation_problem(published_derivation(engine.properties(collection), manifest),
                              release_label(tag, collection) + " in the engine")


def _derived_props(index: KbIndex) -> dict[str, str]:
    """The collection properties recording what `index`'s terms and rows were derived with
    (its store's info table, which `open_index` checked against this kb's rules)."""
    info = index.store.infos()
    props = {P_TOKENS: info.get("tokens") or "", P_DERIVATION: info.get("derivation", "1")}
    if info.get("tokenizer"):
        props[P_TOKENIZER] = info["tokenizer"]  # none recorded: not known, as in the store
    return props


def _complete(engine: Engine, name: str) -> bool:
    """Both collections of release `name` exist and it was marked complete (only ever
    after its rows were loaded and counted, `_check_count`)."""
    has = [engine.call("checking a collection", "has_collection", n)
           for n in (name, name + META_SUFFIX)]
    return all(has) and engine.properties(name).get(P_COMPLETE) == "1"


def _refuse_older(engine: Engine, checked: CheckedRelease, cur: dict[str, str]) -> None:
    serial = int(cur.get(P_SERIAL, "-1"))
    if checked.serial < 0 or serial < 0:
        return  # local builds carry no order
    if checked.serial < serial or (checked.serial == serial
                                   and cur.get(P_MANIFEST) != checked.manifest_sha256):
        raise EngineError(f"release {checked.tag} (serial {checked.serial}) is not newer than "
                          f"the published {cur.get(P_TAG)} (serial {serial}); use `kb "
                          "rollback --engine …` to serve an older release",
                          path=str(engine.url))


def _load(engine: Engine, index: KbIndex, checked: CheckedRelease, name: str,
          derived: dict[str, str], say: Progress) -> None:
    models = sorted(index.manifest.get("models", {}))
    fields = {m: f"v{i}" for i, m in enumerate(models)}
    dims = {fields[m]: int(index.vectors(m).ndim) for m in models}
    params = index.manifest["config"]["values"]["index"]
    meta = name + META_SUFFIX
    # the release's own collection first: whatever an interrupted publish leaves is listed
    # (`Engine.releases`, incomplete) until this release is published again or pruned
    engine.call(f"creating {name}", "create_collection", name, schema=_schema(engine, dims),
                properties={P_TAG: checked.tag or "", P_SERIAL: str(checked.serial),
                            P_MANIFEST: checked.manifest_sha256, **derived})
    engine.call(f"creating {meta}", "create_collection", meta, schema=_meta_schema(engine))
    for i in range(0, len(rows := blob_rows(meta_parts(index, checked, fields))), 64):
        engine.call(f"writing {meta}", "insert", meta, rows[i:i + 64])
    done = 0
    for batch in chunk_rows(index, fields):
        engine.call(f"writing {name}", "insert", name, batch)
        done += len(batch)
        say(f"inserted {done} chunks")
    for coll in (meta, name):
        engine.call(f"flushing {coll}", "flush", coll)
    ip = engine.client.prepare_index_params()
    ip.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="IP",
                 params={"drop_ratio_build": 0.0})
    for field in dims:
        ip.add_index(field, index_type="HNSW", metric_type="COSINE",
                     params={"M": int(params["connectivity"]),
                             "efConstruction": int(params["expansion_add"])})
    engine.call(f"indexing {name}", "create_index", name, ip)
    mip = engine.client.prepare_index_params()
    mip.add_index("pad", index_type="FLAT", metric_type="L2")
    engine.call(f"indexing {meta}", "create_index", meta, mip)
    for coll in (meta, name):
        engine.call(f"loading {coll}", "load_collection", coll)
    say(f"loaded {name}")


def _check_count(engine: Engine, name: str, want: int) -> None:
    got = engine.call(f"counting {name}", "query", name, filter="",
                      output_fields=["count(*)"], consistency_level="Strong",
                      timeout=WRITE_TIMEOUT)  # a step of the publish, after the load
    n = int(got[0]["count(*)"]) if got else 0
    if n != want:
        raise EngineError(f"collection {name} holds {n} chunks, the release {want}; the "
                          "alias was not moved (publish again)", path=str(engine.url))
    engine.call(f"marking {name} complete", "alter_collection_properties", name,
                {P_COMPLETE: "1", P_PUBLISHED: now()})


def prune(engine: Engine, keep: int, alias: str = ALIAS) -> list[str]:
    """Drop complete release collections beyond the newest `keep` (`Engine.releases`
    order), never one that any alias of the database points at (`alias` is the one just
    moved, read again with the others), and ``__meta`` collections left without their
    release by an interrupted drop. Incomplete releases are left to the publish that may
    still be loading them; an interrupted one is dropped when its release is published
    again."""
    releases = engine.releases()
    complete = [r for r in releases if r["complete"]]
    served = set(engine.aliased())
    kept = {r["collection"] for r in complete[-max(keep, 1):]} | served
    dropped = []
    for r in complete:
        if r["collection"] not in kept:
            engine.drop(r["collection"])
            dropped.append(r["collection"])
    for meta in engine.orphans():
        engine.call(f"dropping {meta}", "drop_collection", meta)
        dropped.append(meta)
    return dropped


def rollback(engine: Engine, tag: str | None = None, alias: str = ALIAS) -> dict[str, Any]:
    """Point `alias` at release `tag` (default: the newest complete release older than the
    served one, never the served one as a kb of other derivation rules published it), in
    its collection derived by this kb's rules; EngineError, the alias unmoved, when there
    is none."""
    current = engine.alias_target(alias)
    releases = [r for r in engine.releases() if r["complete"]]
    if tag is not None:
        found = [r for r in releases if tag in (r["tag"], r["collection"])]
        if not found:
            have = ", ".join(r["tag"] or r["collection"] for r in releases) or "none"
            raise EngineError(f"release {tag!r} is not published (published: {have})",
                              path=str(engine.url))
    else:
        names = [r["collection"] for r in releases]
        pos = names.index(current) if current in names else len(names)
        served = _same_release(releases[pos]) if pos < len(releases) else None
        older = [r for r in releases[:pos] if _same_release(r) != served]
        if not older:
            raise EngineError("no older published release to roll back to",
                              path=str(engine.url))
        found = [r for r in releases if _same_release(r) == _same_release(older[-1])]
    problems = {r["collection"]: _problem_of(engine, r) for r in found}
    target = ([r for r in found if problems[r["collection"]] is None] or found)[-1]
    if (problem := problems[target["collection"]]) is not None:
        raise EngineError(f"{problem}, so its readers would refuse it; the alias was not "
                          "moved: publish that release again with this kb (`kb publish "
                          "--engine … --index RELEASE`), then roll back to it",
                          path=str(engine.url))
    engine.point_alias(target["collection"], alias)
    return {"engine": str(engine.url), "from": current, "to": target["collection"],
            "tag": target["tag"]}


def _same_release(r: dict[str, Any]) -> tuple[str | None, int, str]:
    """What makes two collections one release (published by kbs of other tokenizers)."""
    return r["tag"], r["serial"], r["manifest_sha256"]


def _problem_of(engine: Engine, r: dict[str, Any]) -> str | None:
    """`_derivation_problem` of release `r` (`Engine.releases`); its manifest is read only
    for a release published before its tokenizer version was recorded."""
    collection = r["collection"]
    manifest: Any = {}
    if P_TOKENS not in engine.properties(collection):
        try:
            manifest = json.loads(read_parts(engine, collection)["manifest"])
        except (KeyError, TypeError, ValueError):
            manifest = {}
    return _derivation_problem(engine, collection, manifest if isinstance(manifest, dict)
                               else {}, r["tag"])
