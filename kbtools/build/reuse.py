"""Unchanged data/ shards of the previous output reused as they are: an edit writes one shard.

A document's chunks land in one shard of data/ (`kbtools.index.layout.shard_of`): its
chunk file data/chunks/<xx>.jsonl and, per model, data/vectors/<model>/<xx>.npy. Their
bytes, and those of the shard's documents' copies in data/source/, are a function of the
shard's documents and each one's chunk key (`kbtools.build.memo.BuildMemo.chunk_key`: the
document's bytes, the chunker, the corpus's headings, its CSV names, the embedding
settings) and its Git provenance (`history_key`: every line's blame, which the chunks'
`provenance` is computed from), together with the build's settings and the models'
fingerprints — as long as no chunk of the shard carries verification (it depends on the
review's history as well; such shards are always written). So a commit that changes one
document leaves the other shards to be taken as they are.

After a build, each such shard's key is kept in the parse cache (`ParseCache`, table
"shards") with what was written for it: its documents' chunk counts, its models, its files'
manifest entries and each file's (inode, size, mtime) in the output. The next build into the
same output computes the keys again; a shard whose key matches, whose files are listed with
the same entries in the output's manifest and still have the same (inode, size, mtime)
(never rewritten since) is hard-linked into the staging directory with its manifest entries:
it is neither decoded, embedded, serialised nor hashed again. The bytes are those a full
build writes (`tests/test_incremental.py` compares); anything that does not match is just
written as usual.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from kbtools.blame_runs import BlameRuns
from kbtools.build.parse_cache import ParseCache
from kbtools.index.layout import ReleaseLayout, shard_of
from kbtools.provenance import LineProvenance

TABLE = "shards"
TABLES_KEY = "csv-files-1"  # the entry of an output's data/tables/ files in TABLE


@dataclass(frozen=True)
class ShardEntry:
    """What a build wrote for one shard (see the module docstring)."""

    key: str
    docs: dict[str, int]  # document → its chunk count
    models: tuple[str, ...]  # models with a vector file in the shard
    files: dict[str, dict[str, Any]]  # release-relative path → manifest entry
    stats: dict[str, list[int]]  # release-relative path → [inode, size, mtime_ns] in the output
    shared: int = 0  # its chunks scored by a parent's vector (the manifest counts them)

    def encode(self) -> str:
        return json.dumps({"docs": self.docs, "models": list(self.models), "files": self.files,
                           "stats": self.stats, "shared": self.shared}, sort_keys=True)  # ASCII: any path is kept

    @classmethod
    def decode(cls, key: str, text: str) -> ShardEntry:
        data = json.loads(text)
        return cls(key, {str(d): int(n) for d, n in data["docs"].items()},
                   tuple(map(str, data["models"])),
                   {str(p): dict(e) for p, e in data["files"].items()},
                   {str(p): [int(x) for x in s] for p, s in data["stats"].items()},
                   int(data.get("shared", 0)))


# a line's fields in order, as `dataclasses.astuple` gives them (which copies each value
# deeply: 3 s of every build at 230k lines)
_LINE_FIELDS = operator.attrgetter(*(f.name for f in fields(LineProvenance)))


def history_key(blame: Sequence[LineProvenance] | None) -> str:
    """The part of a document's reuse key that its Git provenance makes ("" without any):
    a digest of every line's blame, which is all `chunk_provenance` reads."""
    if not blame:
        return ""
    rows = list(blame.line_fields() if isinstance(blame, BlameRuns) else map(_LINE_FIELDS, blame))
    text = json.dumps(rows, ensure_ascii=False)
    return ":blame:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stat(path: Path) -> list[int]:
    st = os.stat(path, follow_symlinks=False)
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def shard_files(layout: ReleaseLayout, shard: str, models: tuple[str, ...],
                docs: list[str]) -> list[str]:
    """The files of one shard, relative to the release: its chunk file, one vector file per
    model, and the copies of its documents in data/source/."""
    def rel(path: Path) -> str:
        return path.relative_to(layout.root).as_posix()

    source = rel(layout.source)
    return [rel(layout.chunk_shard(shard)), *(rel(layout.vector_shard(m, shard)) for m in models),
            *(f"{source}/{d}" for d in docs)]


class ShardReuse:
    """Shard keys of one build into `out`; `context` digests everything else the shards'
    bytes depend on (settings, model fingerprints, versions). Without a cache, or when `out`
    is not a release, nothing is reused."""

    def __init__(self, cache: ParseCache | None, out: Path, context: str,
                 keys: dict[str, str], plain: set[str]):
        self.cache, self.out, self.context = cache, out.resolve(), context
        self.keys = keys  # document → chunk key
        self.by_shard: dict[str, list[str]] = {}
        for doc in sorted(keys):
            self.by_shard.setdefault(shard_of(doc), []).append(doc)
        # only shards whose every chunk is a function of the documents' bytes
        self.shard_keys = {s: self._key(docs) for s, docs in self.by_shard.items()
                           if all(d in plain for d in docs)}
        self.previous: dict[str, Any] = {}
        layout = ReleaseLayout(self.out)
        if cache is not None and layout.is_release():
            try:
                self.previous = json.loads(layout.manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.previous = {}

    def _key(self, docs: list[str]) -> str:
        text = json.dumps([self.context, [[d, self.keys[d]] for d in docs]], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _name(self, shard: str) -> str:
        return json.dumps([str(self.out), shard])

    def plan(self, staging: Path) -> dict[str, ShardEntry]:
        """The shards of the previous output that can be taken as they are, hard-linked into
        `staging` at once (`_take`)."""
        if self.cache is None or not self.previous:
            return {}
        artifacts = self.previous.get("artifacts", {})
        layout = ReleaseLayout(self.out)
        kept: dict[str, ShardEntry] = {}
        for shard, key in sorted(self.shard_keys.items()):
            text = self.cache.get_value(TABLE, self._name(shard), key)
            if not isinstance(text, str):
                continue
            try:
                entry = ShardEntry.decode(key, text)
                paths = set(shard_files(layout, shard, entry.models, self.by_shard[shard]))
                if sorted(entry.docs) != self.by_shard[shard] or set(entry.files) != paths or \
                        any(artifacts.get(p) != e for p, e in entry.files.items()) or \
                        any(_stat(self.out / p) != entry.stats.get(p) for p in entry.files):
                    continue
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # a damaged entry or a file gone: written again
            if self._take(staging, entry):
                kept[shard] = entry
        return kept

    def _take(self, staging: Path, entry: ShardEntry) -> bool:
        """Hard-link a shard's files into `staging` (a copy where links fail) and confirm
        each is the file the entry recorded, (inode, size, mtime) as the link has it: the
        link holds that file whatever happens to `out` after (another build's tree swapped
        in: `kb watch` and a `kb build` into one dist/). False, nothing left in `staging`,
        when one is not."""
        made: list[Path] = []
        try:
            for rel in entry.files:
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(self.out / rel, target)
                except OSError:  # no hard links here: a copy, of the file if it stayed
                    before = _stat(self.out / rel)
                    made.append(target)
                    shutil.copyfile(self.out / rel, target)
                    got = before if _stat(self.out / rel) == before else []
                else:
                    made.append(target)
                    got = _stat(target)
                if got != entry.stats.get(rel):
                    raise OSError(f"{rel} is not the file the previous build wrote")
        except OSError:
            for target in made:
                target.unlink(missing_ok=True)
            return False
        return True

    @staticmethod
    def entries(kept: dict[str, ShardEntry]) -> dict[str, dict[str, Any]]:
        """The manifest entries of the kept shards' files (linked by `plan`)."""
        return {rel: meta for entry in kept.values() for rel, meta in entry.files.items()}

    def record(self, models: dict[str, tuple[str, ...]], counts: dict[str, int],
               artifacts: dict[str, dict[str, Any]], shared: dict[str, int]) -> None:
        """Keep the entries of the shards this build wrote, now in `out` (after the swap);
        `models` lists each written shard's models, `artifacts` is the manifest's, `shared`
        each written shard's count of chunks that share a parent's vector. (A kept
        shard's entry stands: its files are the same, linked.)"""
        if self.cache is None:
            return
        layout = ReleaseLayout(self.out)
        for shard, key in sorted(self.shard_keys.items()):
            if shard not in models:
                continue
            paths = shard_files(layout, shard, models[shard], self.by_shard[shard])
            try:
                entry = ShardEntry(key, {d: counts[d] for d in self.by_shard[shard]},
                                   models[shard], {p: artifacts[p] for p in paths},
                                   {p: _stat(self.out / p) for p in paths},
                                   shared.get(shard, 0))
            except (OSError, KeyError):
                continue
            self.cache.put_value(TABLE, self._name(shard), key, entry.encode())
        self.cache.flush()


@dataclass
class Written:
    """What to remember of a build's shards once they are in the output."""

    reuse: ShardReuse
    models: dict[str, tuple[str, ...]]  # shard written → its models
    counts: dict[str, int]  # document → chunk count
    artifacts: dict[str, dict[str, Any]]
    shared: dict[str, int]  # shard written → its chunks sharing a parent's vector
    tables: TableReuse | None = None
    config: Any = None  # the manifest's "config" (the settings the index was built with)

    def record(self) -> None:
        self.reuse.record(self.models, self.counts, self.artifacts, self.shared)
        if self.tables is not None:
            self.tables.record()

    def unchanged(self) -> bool:
        """Whether data/ is the previous output's, file for file (a commit of code alone):
        no document, picture, table or setting the index holds changed."""
        return bool(self.reuse.previous) and self.reuse.previous.get("artifacts") == self.artifacts

    def changes(self) -> list[str]:
        """What of data/ differs from the previous output's, in an author's words
        (`changed_kinds`); [] when there is no previous output or nothing differs."""
        if not self.reuse.previous:
            return []
        before = self.reuse.previous.get("artifacts")
        said = changed_kinds(before if isinstance(before, dict) else {}, self.artifacts)
        if self.config is not None and self.reuse.previous.get("config") != self.config:
            said.append("settings")  # (kb.toml: what BM25 or the queries are set to)
        return said


# data/ files by what an author changed to change them, in the order they are said; the
# chunks' vectors, page vectors and no-answer calibration follow the chunks (said only alone)
_KINDS = (("data/chunks/", "chunks"), ("data/docs.jsonl", "documents"),
          ("data/dictionary.txt", "dictionary"), ("data/synonyms.txt", "synonyms"),
          ("data/formulas/", "formulas"), ("data/tables/", "tables"),
          ("data/vectors/", "vectors"), ("data/pages/", "vectors"),
          ("data/no_answer.json", "no-answer calibration"))
_FOLLOW = {"vectors", "no-answer calibration"}


def changed_kinds(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The kinds of data/ files (`_KINDS`; data/source/: "documents" for Markdown, else
    "pictures") added, removed or changed from `before` to `after` (manifest artifacts),
    each once, in `_KINDS`' order; the kinds that follow the chunks only without them."""
    kinds: set[str] = set()
    for rel in set(before) ^ set(after) | {r for r in before if r in after
                                           and before[r] != after[r]}:
        if rel.startswith("data/source/"):
            kinds.add("documents" if rel.lower().endswith((".md", ".markdown")) else "pictures")
            continue
        kinds.update(kind for prefix, kind in _KINDS if rel.startswith(prefix))
    order = ["documents", "chunks", "pictures",
             *dict.fromkeys(kind for _, kind in _KINDS if kind not in ("chunks", "documents"))]
    said = [kind for kind in order if kind in kinds]
    if "documents" in said:  # their chunks changed with them
        said.remove("chunks") if "chunks" in said else None
    if any(kind not in _FOLLOW for kind in said):
        said = [kind for kind in said if kind not in _FOLLOW]
    return said


def kept_models(models: dict[str, dict[str, Any]], kept: dict[str, ShardEntry],
                previous: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifest's models: those embedded for the written shards plus, from the previous
    manifest, those only kept shards use (their fingerprints are in the shards' keys)."""
    out = dict(models)
    for name in sorted({m for e in kept.values() for m in e.models} - set(out)):
        out[name] = previous["models"][name]
    return out


class TableReuse:
    """The CSV files of data/tables/ (`kbtools.render.table_csv.render_tables`) of one build
    into `out`: a file whose bytes the previous build into `out` wrote already is
    hard-linked from there instead of created (creating ~600 small files was a tenth of a
    watcher's rebuild). After each build the cache records, per file of the output, the
    sha256 of what was written and its (inode, size, mtime); a file is linked only when its
    new bytes have that digest and the output's file still has that (inode, size, mtime)
    (never rewritten since). Every file placed, linked or written, gets its manifest entry
    from the bytes in memory, so list_files does not read it back."""

    def __init__(self, cache: ParseCache | None, out: Path, staging: Path):
        self.cache, self.out, self.staging = cache, out.resolve(), staging
        self.before: dict[str, list[Any]] = {}
        self.entries: dict[str, dict[str, Any]] = {}  # release-relative path → manifest entry
        self.linked: dict[str, dict[str, Any]] = {}  # (those linked from the previous output)
        if cache is not None and ReleaseLayout(self.out).is_release():
            text = cache.get_value(TABLE, self._name(), TABLES_KEY)
            try:
                data = json.loads(text) if isinstance(text, str) else {}
                self.before = {str(p): list(v) for p, v in data.items()}
            except (ValueError, TypeError, AttributeError):
                self.before = {}

    def _name(self) -> str:
        return json.dumps([str(self.out), "tables"])

    def place(self, target: Path, data: bytes) -> None:
        """Put `data` at `target` (a path inside the staging directory)."""
        rel = target.relative_to(self.staging).as_posix()
        sha = hashlib.sha256(data).hexdigest()
        entry = self.entries[rel] = {"sha256": sha, "size": len(data)}
        got = self.before.get(rel)
        if got is not None and got[0] == sha:
            try:  # linked, then checked as linked: the file recorded, whatever `out` is now
                os.link(self.out / rel, target)
                if _stat(target) == got[1:]:
                    self.linked[rel] = entry
                    return
            except OSError:
                pass  # written below
            target.unlink(missing_ok=True)  # (never written through a link to `out`)
        target.write_bytes(data)

    def record(self) -> None:
        """Keep what this build placed, now in `out` (after the swap)."""
        if self.cache is None:
            return
        kept: dict[str, list[Any]] = {}
        for rel, entry in sorted(self.entries.items()):
            try:
                kept[rel] = [entry["sha256"], *_stat(self.out / rel)]
            except OSError:
                continue
        self.cache.put_value(TABLE, self._name(), TABLES_KEY, json.dumps(kept))
        self.cache.flush()
