"""Check a derived index/ against the verified data/ it was derived from.

A release's manifest pins the bytes of data/ (sha256 of every file); index/ is derived
from it on the device, and since it may be derived incrementally from an earlier release
(`kbtools.index.incremental`) its bytes are not pinned. `check_derived` checks instead what
the index must hold:

- store: the rules it records it was derived by (`derivation_problem`: the tokenizer
  version, `TOKENS_VERSION`, the derivation's own `DERIVATION` and the tokenizer libraries'
  versions; an index derived by other rules holds terms this kbtools does not make of a
  question or files it reads otherwise, and `open_index` refuses it); the manifest's document and chunk counts; every document of docs.jsonl holds
  exactly its `n_chunks` chunk numbers, contiguous and in shard order (so the numbering of
  every chunk is right); every row of the checked shards equals its data/ record, including
  which chunk's vector it shares (`shares`);
- BM25: as many documents and term-id runs as chunks, a vocabulary that matches the
  matrices, and for each checked chunk its stored term ids are its text's tokens (what the
  tokenizer says, or said before of the same text: `kbtools.index.token_cache`) and every
  one of its terms lists it;
- vectors: per model, the graph's keys are exactly the numbers of the chunks listing that
  model; each checked chunk's stored vector equals its data/ vector and finds itself.

"Checked shards" are `extra` (e.g. the shards an incremental derivation rewrote) plus an
even sample of the others (all of them in a small release). Counts and keys cover every
chunk; contents are covered where sampled.

What the check reads cannot see every byte: a byte appended to store.sqlite, or changed in a
page of it or a row no query reaches, passed. So once an index/ checks out where it was
derived (`kbtools.ship.install.derive_index`), `record_derived` writes the size and sha256 of
every file in it to index/files.json (`DERIVED_RECORD`), and `derived_problems` holds
index/ to it first: any file changed, appended to, cut short, removed or added since is a
problem naming it. verified.json says a release's index was so recorded (``derived_record``),
so the record removed is one too; an index derived by an older kbtools has none and is held
to `check_derived` alone, until `kb sync` derives the next one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.cachedb import connect
from kbtools.errors import ConfigError, KbError
from kbtools.fsutil import read_json_lines
from kbtools.index import bm25 as bm25index
from kbtools.index import vectors
from kbtools.index.layout import DERIVED_DIR, VERIFIED, ReleaseLayout, shard_of
from kbtools.index.manifest import file_problem, named_problem, verify_files
from kbtools.index.stamps import Signature, changed_before, clock_past, signature
from kbtools.index.store import read_infos, shares_value, store_damage
from kbtools.index.token_cache import TokenCache
from kbtools.index.tokenize import TOKENS_VERSION, shared_tokenizer, tokenizer_libs

SELF_CHECK = "selfcheck-1"  # manifest["derived_check"] of releases checked by this module
# how index/ is made of data/: bump it whenever the same data/ would give other index/ files
# (store columns or values, BM25 files, graphs) under the same TOKENS_VERSION; recorded in
# the store (`derivation_info`), and an index/ of another is derived again
DERIVATION = "2"  # 2: the docs table's `body_tags` (a document's inline tags)
SAMPLED_SHARDS = 12
SEARCH_DEPTH = 10  # a searched chunk must be among the first this many it finds
_COLUMNS = ("id", "doc", "kind", "line_start", "line_end", "text", "embed_text")
DERIVED_RECORD = f"{DERIVED_DIR}/files.json"  # size and sha256 of the other files of index/
MAX_RECORD_BYTES = 4 << 20


def sampled_shards(shards: Sequence[str]) -> set[str]:
    """The even sample of `shards` (the sorted names of the shards holding chunks) whose
    rows every check reads."""
    step = max(1, len(shards) // SAMPLED_SHARDS)
    return set(shards[::step])


def derived_problems(root: Path, manifest: dict[str, Any]) -> list[str]:
    """Problems of the derived index/ of release `root`: by hash when its manifest pins
    index/ bytes (``derived``, older releases), else by `check_derived`; none when the
    manifest describes no index."""
    if manifest.get("derived"):
        return [p for p in verify_files(root, manifest, artifacts=False)
                if p.split(":", 1)[0] in manifest["derived"]]
    if manifest.get("derived_check") is None:
        return []
    recorded = recorded_problems(root)
    problem, other_rules = index_rules(root)
    if problem is not None and not other_rules:
        # a store cut short or removed: its size or "missing", not SQLite's "no such table:
        # info" or "unable to open database file"
        return recorded or [problem]
    # the check's own words first when it finds the cause (an index of other rules)
    return check_derived(root) or recorded


def index_rules(root: Path) -> tuple[str | None, bool]:
    """Why root/index/ is not one this kbtools opens (derived by other rules,
    `derivation_problem`; a store missing, cut short, appended to or unreadable), or None;
    and whether it is of other rules rather than a damaged (or missing) store. The rules are
    read only from the info table of a store whose length is the one its header records
    (`store.store_damage`), which no truncation or append fakes: SQLite reads a store cut
    short as one with no info table, or a malformed one, which read as "v2 or older" rules;
    no store records no rules at all, so a removed one is damage too (held to the record
    that names it, `recorded_problems`). One small read of the store."""
    store = ReleaseLayout(root).store
    name = store.relative_to(root).as_posix()
    if not store.is_file():
        return f"{name}: missing", False
    damage = store_damage(store)
    if damage is not None:
        return f"{name}: {damage}", False
    try:
        infos = read_infos(store)
    except sqlite3.Error as exc:
        return f"{name}: unreadable ({exc})", False
    return derivation_problem(infos), True


def _derived_files(root: Path) -> list[str]:
    """Every entry under root/index/ but its directories and the record, as paths relative
    to `root` (sorted)."""
    found = []
    for top, dirs, files in os.walk(root / DERIVED_DIR):
        dirs.sort()
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(top, d)))]:
            rel = Path(top, name).relative_to(root).as_posix()
            if rel != DERIVED_RECORD:
                found.append(rel)
    return sorted(found)


def record_derived(root: Path, signed: dict[str, Signature] | None = None) -> None:
    """Write root/index/files.json: the size and sha256 of every file of root/index/ (derived
    and checked: `recorded_problems` holds it to them). `signed` gets the stat signature of
    each file hashed, changed before the file system's clock was read ahead of hashing them
    (`stamps.clock_past`), as data/'s are: what `kbtools.ship.intact.vouch` takes as hashed,
    so the first open of the release does not hash index/ again."""
    try:
        settled = clock_past(root) if signed is not None else 0
    except OSError:
        settled = 0
    files = {}
    for rel in _derived_files(root):
        h, size, before = hashlib.sha256(), 0, signature(root / rel)
        with open(root / rel, "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
                size += len(block)
        files[rel] = {"size": size, "sha256": h.hexdigest()}
        if signed is not None and changed_before(before, settled) and \
                signature(root / rel) == before:
            signed[rel] = before
    (root / DERIVED_RECORD).write_text(json.dumps({"files": files}, indent=1, sort_keys=True)
                                       + "\n", encoding="utf-8")


def read_record(root: Path) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """root/index/'s record (`record_derived`): each file it lists -> (size, sha256), and
    what is wrong with the record itself (missing where verified.json says it was written,
    unreadable, naming a file outside index/: then nothing listed). Nothing either way when
    there is no record and none was said to be written (an index derived by an older
    kbtools)."""
    record = root / DERIVED_RECORD
    try:
        if record.is_symlink() or record.stat().st_size > MAX_RECORD_BYTES:
            return {}, [f"{DERIVED_RECORD}: not the record kb sync wrote"]
        files = json.loads(record.read_text(encoding="utf-8"))["files"]
        listed = {str(rel): (int(m["size"]), str(m["sha256"])) for rel, m in files.items()}
    except FileNotFoundError:
        try:
            said = json.loads((root / VERIFIED).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            said = {}
        return {}, [f"{DERIVED_RECORD}: missing"] if isinstance(said, dict) and \
            said.get("derived_record") else []
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, [f"{DERIVED_RECORD}: unreadable ({exc})"]
    for rel in sorted(listed):
        if not rel.startswith(f"{DERIVED_DIR}/") or ".." in rel.split("/"):
            return {}, [f"{DERIVED_RECORD}: names {rel!r}, not a file of {DERIVED_DIR}/"]
    return listed, []


def recorded_problems(root: Path) -> list[str]:
    """What differs in root/index/ from its record (`record_derived`): a file changed, cut
    short, appended to or gone, one added; the record itself missing where verified.json
    says it was written, or unreadable. Empty when it matches, or when there is no record
    and none was said to be written (an index derived by an older kbtools)."""
    listed, problems = read_record(root)
    if problems:
        return problems
    for rel, (size, sha256) in sorted(listed.items()):
        why = file_problem(root, rel, size, sha256)
        if why is not None:
            problems.append(str(named_problem(rel, why)))
    return problems + unrecorded_files(root, listed)


def unrecorded_files(root: Path, listed: Mapping[str, object]) -> list[str]:
    """A problem for each file of root/index/ its record (`listed`) does not name."""
    return [f"{rel}: not a file the index was derived with"
            for rel in _derived_files(root) if rel not in listed]


def tokens_problem(tokens: str | None, what: str = "index/") -> str:
    """What is wrong with an index/ (`what`: the thing named) whose store records tokenizer
    version `tokens` (None: it records none, as those derived before the record existed)."""
    return (f"{what} holds BM25 terms of tokenizer {tokens or 'v2 or older'}, this kb makes "
            f"{TOKENS_VERSION}")


def derivation_info(backend: str) -> dict[str, str]:
    """What a store's info table records of the rules that derived its index/ (besides
    ``source_commit``): the tokenizer version (`TOKENS_VERSION`), how index/ is made of data/
    (`DERIVATION`) and the tokenizer's libraries (`tokenize.tokenizer_libs` of the
    release's ``bm25.tokenizer`` `backend`). `derivation_problem` reads it back."""
    return {"tokens": TOKENS_VERSION, "derivation": DERIVATION,
            "tokenizer": tokenizer_libs(backend)}


def derivation_problem(info: Mapping[str, str], what: str = "index/") -> str | None:
    """Why an index/ whose store's info table is `info` was not derived by this kbtools'
    rules (None: it was): another tokenizer version, another `DERIVATION`, another version
    of a tokenizer library. Its terms or files would match questions silently worse, so
    every reader refuses it, a device derives it again (`kb sync`) and a read-only one
    serves a copy (`kbtools.ship.readonly`). A store derived before a record existed
    records no ``derivation`` (it was "1") and no ``tokenizer`` (not known: accepted). A
    release published to an engine records the same of its terms (`kbtools.engine.milvus.
    published_derivation`); `what` names the thing in the problem."""
    tokens = info.get("tokens")
    if tokens != TOKENS_VERSION:
        return tokens_problem(tokens, what)
    derivation = info.get("derivation", "1")
    if derivation != DERIVATION:
        return (f"{what} was derived by the rules of kbtools derivation {derivation}, this kb "
                f"derives {DERIVATION}")
    libs = info.get("tokenizer")
    if libs is not None:
        try:
            here = tokenizer_libs(libs.split("==", 1)[0])
        except ConfigError as exc:
            return f"{what} holds BM25 terms cut by {libs}; {exc.message}"
        if libs != here:
            return f"{what} holds BM25 terms cut by {libs}, this kb cuts with {here}"
    return None


def check_derived(root: Path, extra: set[str] | None = None) -> list[str]:
    """Problems of root/index (empty list: it checks out)."""
    layout = ReleaseLayout(root)
    try:
        return _check(layout, extra or set())
    except (OSError, ValueError, KeyError, IndexError, TypeError, sqlite3.Error,
            KbError) as exc:
        return [f"index/ unreadable: {exc}"]


def _check(layout: ReleaseLayout, extra: set[str]) -> list[str]:
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    con = connect(layout.store, read_only=True)
    try:
        problems, rows = _check_store(layout, manifest, con, extra)
        if problems:
            return problems
        models = {m: np.array([n for n, r in sorted(rows.items()) if m in r["models"]])
                  for m in manifest["models"]}
        all_nums = {m: np.array([r[0] for r in con.execute(
            "SELECT num FROM chunks WHERE ',' || models || ',' LIKE ? ORDER BY num",
            (f"%,{m},%",))], dtype=np.uint64) for m in manifest["models"]}
    finally:
        con.close()
    problems += _check_bm25(layout, manifest, rows)
    for model in sorted(manifest["models"]):
        problems += _check_graph(layout, model, all_nums[model], models[model], rows,
                                 manifest["config"]["values"]["index"]["expansion_search"])
    return problems


def _check_store(layout: ReleaseLayout, manifest: dict[str, Any], con: sqlite3.Connection,
                 extra: set[str]) -> tuple[list[str], dict[int, dict[str, Any]]]:
    problem = derivation_problem(dict(con.execute("SELECT key, value FROM info")))
    if problem is not None:
        return [problem], {}
    counts = manifest["counts"]
    n_chunks = con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    n_docs = con.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
    if (n_chunks, n_docs) != (counts["chunks"], counts["documents"]):
        return [f"index/store.sqlite holds {n_chunks} chunks of {n_docs} documents, the "
                f"manifest {counts['chunks']} of {counts['documents']}"], {}
    spans = {d: (lo, hi, n) for d, lo, hi, n in con.execute(
        "SELECT doc, MIN(num), MAX(num), COUNT(*) FROM chunks GROUP BY doc")}
    docs = read_json_lines(layout.docs, error=KbError)
    at = 0
    for d in sorted(docs, key=lambda d: (shard_of(d["doc"]), d["doc"])):
        n = int(d.get("n_chunks", 0))
        if n and spans.get(d["doc"]) != (at, at + n - 1, n):
            return [f"index/store.sqlite: chunks of {d['doc']} are not numbers {at}..{at + n - 1}"], {}
        at += n
    shards = sorted({shard_of(d["doc"]) for d in docs if d.get("n_chunks")})
    checked = sorted(sampled_shards(shards) | (extra & set(shards)))
    starts: dict[str, int] = {}
    at = 0
    for d in sorted(docs, key=lambda d: (shard_of(d["doc"]), d["doc"])):
        starts.setdefault(shard_of(d["doc"]), at)
        at += int(d.get("n_chunks", 0))
    rows: dict[int, dict[str, Any]] = {}
    for s in checked:
        records = read_json_lines(layout.chunk_shard(s), error=KbError)
        nums = list(range(starts[s], starts[s] + len(records)))
        marks = ",".join("?" * len(nums))
        stored = {r[0]: r[1:] for r in con.execute(
            f"SELECT num, {', '.join(_COLUMNS)}, models, shares FROM chunks "
            f"WHERE num IN ({marks})", nums)}
        num_of = {rec["id"]: num for num, rec in zip(nums, records, strict=True)}
        for num, rec in zip(nums, records, strict=True):
            try:
                lent = shares_value(rec, num, num_of)
            except ValueError as exc:
                return [f"{layout.chunk_shard(s).relative_to(layout.root).as_posix()}: {exc}"], {}
            want = tuple(rec[c] for c in _COLUMNS) + (",".join(rec["models"]), lent)
            if stored.get(num) != want:
                return [f"index/store.sqlite: chunk {num} differs from its record in "
                        f"{layout.chunk_shard(s).relative_to(layout.root).as_posix()}"], {}
            rows[num] = {**rec, "shard": s, "row": num - starts[s]}
    return [], rows


def _check_bm25(layout: ReleaseLayout, manifest: dict[str, Any],
                rows: dict[int, dict[str, Any]]) -> list[str]:
    n = manifest["counts"]["chunks"]
    flat, offsets, vocab = bm25index.load_tokens(layout.bm25)
    if len(offsets) != n + 1:
        return [f"index/bm25: term ids of {len(offsets) - 1} chunks, not {n}"]
    if not n:
        return []
    scores = bm25index.load_scores(layout.bm25)
    if scores["num_docs"] != n or len(scores["indptr"]) not in (len(vocab), len(vocab) + 1) or \
            sorted(vocab.values()) != list(range(len(vocab))):
        return ["index/bm25: matrices do not match the chunks and vocabulary"]
    indices, indptr = np.asarray(scores["indices"]), np.asarray(scores["indptr"])
    rising = np.diff(indices.astype(np.int64)) > 0
    rising[indptr[1:-1][indptr[1:-1] > 0] - 1] = True  # a new term's postings start over
    if len(indices) and (indices.min() < 0 or indices.max() >= n or not rising.all()
                         or not np.all(np.asarray(scores["data"]) > 0)):
        return ["index/bm25: postings out of order or out of range"]
    cfg = manifest["config"]["values"]["bm25"]
    words = layout.dictionary.read_text(encoding="utf-8").split()
    tok = shared_tokenizer(cfg["tokenizer"], tuple(words))
    k1, b = cfg["k1"], cfg["b"]
    avg = float(offsets[-1]) / n
    pairs: list[tuple[int, int, int, int]] = []  # (chunk, term, count, chunk length)
    # what the tokenizer said of each text, kept outside the index (`token_cache`): an entry
    # that disagrees with the index is tokenized again before anything is reported
    cache = TokenCache(tok)
    try:
        said = cache.get_many(rec["embed_text"] for rec in rows.values())
        fresh: dict[str, list[str]] = {}
        for num, rec in sorted(rows.items()):
            ids = flat[offsets[num]:offsets[num + 1]].tolist()
            text = rec["embed_text"]
            if text not in said or [vocab.get(t) for t in said[text]] != ids:
                said[text] = fresh[text] = tok(text)
                if [vocab.get(t) for t in said[text]] != ids:
                    return [f"index/bm25: stored terms of chunk {num} are not its text's"]
            # (bm25s leaves the last term's column open)
            pairs += [(num, i, tf, len(ids)) for i, tf in Counter(ids).items()
                      if i + 1 < len(indptr)]
        cache.remember(fresh)
    finally:
        cache.close()
    if not pairs:
        return []
    nums, terms, tfs, lens = (np.array(c, dtype=np.int64) for c in zip(*pairs, strict=True))
    # every posting as one sorted key (term, chunk) — postings rise within each term, checked
    # above — so each pair's place is one binary search over the whole matrix
    columns = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    keys = (columns << 32) | indices.astype(np.int64)
    wanted_keys = (terms << 32) | nums
    pos = np.minimum(np.searchsorted(keys, wanted_keys), max(len(keys) - 1, 0))
    missing = np.flatnonzero(keys[pos] != wanted_keys) if len(keys) else np.arange(len(nums))
    if len(missing):
        return [f"index/bm25: chunk {int(nums[missing[0]])} missing from the postings of a term"]
    # the stored score must be Lucene's BM25 of this term in this chunk
    df = (indptr[terms + 1] - indptr[terms]).astype(np.float64)
    norm = k1 * ((1 - b) + b * lens / avg)
    wanted = np.log(1 + (n - df + 0.5) / (df + 0.5)) * tfs / (norm + tfs)
    if not np.allclose(np.asarray(scores["data"])[pos].astype(np.float64), wanted, rtol=1e-4):
        return ["index/bm25: stored scores are not the BM25 of their chunks' terms"]
    return []


def _check_graph(layout: ReleaseLayout, model: str, expected: np.ndarray, sampled: np.ndarray,
                 rows: dict[int, dict[str, Any]], ef: int) -> list[str]:
    name = layout.usearch(model).relative_to(layout.root).as_posix()
    try:
        index = vectors.load(layout.usearch(model), ef)  # opened as queries open it
    except ValueError:
        return [f"{name}: not a usearch index"]
    keys = np.sort(np.asarray(index.keys, dtype=np.uint64))
    if len(index) != len(expected) or not np.array_equal(keys, expected):
        return [f"{name}: holds {len(index)} vectors, not the {len(expected)} chunks with "
                f"{model} vectors"]
    if not len(sampled):
        return []
    vecs: dict[str, np.ndarray] = {}
    row_of: dict[int, int] = {}  # chunk number → its row in the shard's vector file
    for shard in sorted({rows[n]["shard"] for n in sampled.tolist()}):
        mine = [n for n in sorted(rows) if rows[n]["shard"] == shard and model in rows[n]["models"]]
        row_of.update((n, i) for i, n in enumerate(mine))
        vecs[shard] = np.load(layout.vector_shard(model, shard), allow_pickle=False)
    nums = sampled.astype(np.uint64)
    want = _as_stored(index, np.stack([vecs[rows[n]["shard"]][row_of[n]]
                                       for n in sampled.tolist()]))
    got = np.asarray(index.get(nums)).reshape(want.shape).astype(want.dtype)
    for i in np.flatnonzero(~np.all(got == want, axis=1)).tolist():
        return [f"{name}: the vector of chunk {int(nums[i])} is not its data/ vector"]
    # A few searches, as a question searches (exhaustive in a small graph). A large graph
    # is searched through its links, which find a vector's own chunk up to the graph's
    # recall (a fresh graph of the example corpora misses ~1 in 700 at the top): only
    # links that lose many of them are damage.
    searched = sampled[:: max(1, len(sampled) // 16)].tolist()
    missed = []
    for num in searched:
        query = np.asarray(index.get(np.uint64(num)), dtype=np.float32).reshape(-1)
        found, sims = vectors.search(index, query, SEARCH_DEPTH)
        if num not in found.tolist() and not (len(sims) and sims[0] >= 1 - 1e-3):
            missed.append(num)
    if len(missed) > len(searched) // 4:
        return [f"{name}: searching the vector of chunk {missed[0]} does not find it "
                f"({len(missed)} of {len(searched)} searches)"]
    return []


def _as_stored(index: Any, data: np.ndarray) -> np.ndarray:
    """The data/ vectors `data` (float16 rows) as the graph `index` stores them: the same
    numbers in a float graph; quantized, as usearch quantizes them when they are added, in
    a graph of integers (`dtype = "i8"`)."""
    from usearch.index import Index

    if str(index.dtype).rsplit(".", 1)[-1].upper() in ("F16", "F32", "F64"):
        return data.astype(np.float16)
    probe = Index(ndim=index.ndim, metric=index.metric, dtype=index.dtype)
    keys = np.arange(len(data), dtype=np.uint64)
    probe.add(keys, data.astype(np.float32), threads=1)
    return np.asarray(probe.get(keys)).reshape(len(data), -1)
