"""`kb build`: a commit of knowledge/ → a reproducible index directory.

corpus → check → parse/chunk → render → embed (cached) → data/ shards → index/ → manifest,
all inside a staging directory that replaces the output only when everything succeeded.
See kbtools/index/layout.py for the layout of the output and kbtools/index/manifest.py for
its manifest.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kbtools import __version__
from kbtools import blame_runs as history
from kbtools.blame_runs import BlameRuns
from kbtools.build import verified
from kbtools.build.chunk import CHUNKER_VERSION, ChunkConfig, HeadingIndex
from kbtools.build.chunk_fine import drop_unrendered, unrendered_salt
from kbtools.build.embed_stage import Models, Vectors, embed_records
from kbtools.build.history import blame_key, document_provenance, review_coverages
from kbtools.build.identity import head_sha, source_identity
from kbtools.build.memo import BuildMemo, headings_key
from kbtools.build.parse_cache import PARSE_CACHE_FILE, Outline, ParseCache
from kbtools.build.records import Chunk
from kbtools.build.repo_text import ignored_file, synonym_groups, user_dictionary
from kbtools.build.reuse import ShardReuse, TableReuse, Written, kept_models
from kbtools.build.vector_plan import PLAN_VERSION, plan_models
from kbtools.check.assets import CODES as LEFT_OUT_CODES
from kbtools.check.engine import DocResult, check_results, make_context
from kbtools.config import Config
from kbtools.corpus import SourceDoc, lf_newlines, load_source
from kbtools.embed.base import model_meta, vectors_key
from kbtools.embed.cache import text_key
from kbtools.embed.registry import get_reference_embedder
from kbtools.errors import (
    FindingsError,
    KbError,
    plural,
)
from kbtools.findings import Finding, finding, one_line_path
from kbtools.fsutil import json_lines, replace_dir, staging_dir
from kbtools.index import synonyms
from kbtools.index.layout import DATA_DIR, ReleaseLayout, shard_of
from kbtools.index.manifest import FORMAT_VERSION, file_entry, list_files, write_manifest
from kbtools.index.materialize import materialize
from kbtools.index.selfcheck import SELF_CHECK
from kbtools.index.synonyms import Synonyms
from kbtools.index.tokenize import dictionary_terms, tokenizer_fingerprint
from kbtools.knowledge_dir import knowledge_folder
from kbtools.markdown.frontend import formula_columns
from kbtools.markdown.nodes import Math
from kbtools.query import calibration, pages
from kbtools.render.formula import render_cached
from kbtools.render.images import ship_images
from kbtools.render.latex_allow import inline_problem
from kbtools.render.table_csv import CsvNames, render_tables
from kbtools.review.lapse import ReviewCoverage

# With --lenient (foreign corpora) only problems that make a document unusable block it;
# schema, link and table findings are reported and the document is indexed anyway. A file
# `kb check` did not read (outside the repository, not a regular file, …) always blocks,
# and is never read by the build either: skipped means not read.
LENIENT_BLOCKING = frozenset({"file-not-regular", "file-too-large", "file-unreadable",
                              "encoding-not-utf8", "encoding-utf16", "file-binary",
                              "path-not-utf8", "markdown-too-deep", "yaml-bomb"})
# How a document's copy in data/source/ is written (`_write_source`; 2: LF newlines), part
# of the key of the shards a build takes from the previous output as they are
SOURCE_COPY = 2


@dataclass(frozen=True)
class BuildOptions:
    corpus: Path | None = None  # index this folder instead of the repo's knowledge/
    out: Path | None = None
    lenient: bool = False
    skip_invalid: bool = False
    use_cache: bool = True
    progress: bool = True
    provenance: bool = True  # git blame per chunk and reviews checked against the history
    memo: BuildMemo | None = None  # parsed documents and chunks kept between builds (kb watch)


@dataclass
class BuildStats:
    out: str = ""
    documents: int = 0
    chunks: int = 0
    embedded: int = 0
    reused: int = 0
    # vectors of the chunks (embedded + reused: one per distinct text and model) and the
    # models that made them (English chunks get a second one: more vectors than chunks)
    vectors: int = 0
    vector_models: int = 0
    shared_vectors: int = 0  # chunks scored by their parent's vector (no vector of their own)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    warnings: int = 0
    formulas: int = 0
    tables: int = 0
    lapsed: list[dict[str, Any]] = field(default_factory=list)  # verification lapsed (manifest)
    source_commit: str = ""
    shallow: bool = False  # built from a shallow clone: manifest source.shallow (identity.py)
    derivation: str = ""  # how index/ was derived: "incremental" (from the previous output) or "full"
    unchanged: bool = False  # data/ is the previous output's, file for file: no document changed
    # what of data/ differs from the previous output's ("dictionary", "documents", …: Written.changes)
    changed: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


class _Timer:
    def __init__(self, stats: BuildStats, progress: bool):
        self.stats, self.progress, self.t = stats, progress, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.stats.seconds[stage] = round(now - self.t, 3)
        if self.progress:
            print(f"kb build: {stage:<9} {now - self.t:7.2f}s", file=sys.stderr)
        self.t = now


def build(cfg: Config, opts: BuildOptions = BuildOptions()) -> BuildStats:
    stats = BuildStats()
    timer = _Timer(stats, opts.progress)
    out = (opts.out or cfg.path("dist")).resolve()
    cache_file = cfg.cache_dir() / "embeddings.sqlite" if opts.use_cache else None
    if opts.corpus:  # a foreign folder of Markdown is its own root and knowledge folder
        cfg = corpus_config(cfg, opts.corpus)
    root = cfg.root
    knowledge = cfg.path("knowledge")
    if opts.corpus and not knowledge.is_dir():
        raise KbError("--corpus: no such folder", path=str(knowledge))
    # none: its last document deleted (Git keeps no empty folder), a release of nothing
    folders = [f for f in [knowledge_folder(cfg)] if f is not None]
    started = head_sha(root)  # the commit the files are read in (a commit meanwhile: dirty)
    # unchanged documents are not parsed again by the checks (kb check's scan cache)
    ctx = make_context(cfg, lenient=opts.lenient, cache=opts.use_cache, outputs=(out,))
    ctx.keep_sources = True  # the build indexes the documents as the checks read them
    if opts.memo is not None:  # a watcher: unchanged documents are not checked or read again
        ctx.kept, ctx.statuses = opts.memo.checked, opts.memo.statuses
    results, findings = check_results(folders, ctx)  # walks it once (docfiles.find_markdown)
    unread = {one_line_path(r.rel) for r in results if not r.read}
    errors = [f for f in findings if f.level == "error"
              and (not opts.lenient or f.code in LENIENT_BLOCKING or f.path in unread)]
    if opts.lenient and opts.progress:
        for f in findings:
            if f.level == "error" and f not in errors:
                print(f"kb build: warning (lenient): {f.format()}", file=sys.stderr)
    stats.warnings = len(findings) - len(errors)
    bad = {f.path for f in errors}
    if errors and not opts.skip_invalid:
        shown = "\n".join(f.format() for f in errors[:20])
        more = f"\n… and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise FindingsError(f"{plural(len(bad), 'document has', 'documents have')} errors; nothing "
                            f"was built (fix them or use --skip-invalid):\n{shown}{more}")
    stats.skipped = [{"doc": p, "errors": [f.code for f in errors if f.path == p]}
                     for p in sorted(bad)]
    if bad and all(one_line_path(r.rel) in bad for r in results if r.read):  # not an empty index
        raise FindingsError(f"every document has errors ({len(bad)}); nothing was built, the "
                            f"previous index stays:\n" + "\n".join(f.format() for f in errors[:20]))
    # Skipped documents are not indexed: only those that passed, as the checks read them
    # (through the safe reader: inside the root, a regular file, bounded by the size limit).
    # Findings name a path as printable text: an undecodable file name is matched that way.
    loaded = [r.source if r.source is not None else load_source(r.path, root, ctx.max_bytes)
              for r in results if r.read and one_line_path(r.rel) not in bad]
    sources = [src for src, _ in loaded]
    raw = {src.rel: data for src, data in loaded}
    # the files each document shows and links, as the checks found them, and their
    # warnings about those the release leaves out: the build ships and warns as check says
    shipping = Shipping({r.rel: r for r in results if r.read},
                        [f for f in findings if f.code in LEFT_OUT_CODES])
    timer.lap("check")

    # Staged next to `out` and locked while we live; a killed build's staging dir is
    # removed by the next build (fsutil.staging_dir), and never opened as an index.
    memo = opts.memo if opts.memo is not None else BuildMemo()
    if memo.disk is None and cache_file is not None:  # outlines and chunks of earlier builds
        memo.disk = ParseCache(cache_file.parent / PARSE_CACHE_FILE)
    try:
        with staging_dir(out) as staging:
            try:
                done = _build_into(staging, out, cfg, sources, raw, root, opts, stats, timer,
                                   cache_file, memo, shipping, started)
                replace_dir(staging, out)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        done.record()  # the shards now in `out`, for the next build to take as they are
        stats.unchanged, stats.changed = done.unchanged(), done.changes()
    finally:
        if opts.memo is None and memo.disk is not None:
            memo.disk.close()  # a memo of this build alone
    stats.out = str(out)
    return stats


def _build_into(staging: Path, out: Path, cfg: Config, sources: list[SourceDoc],
                raw: dict[str, bytes], root: Path, opts: BuildOptions, stats: BuildStats, timer: _Timer,
                cache_file: Path | None, memo: BuildMemo, shipping: Shipping,
                started: str | None) -> Written:
    layout = ReleaseLayout(staging)
    user_dict = user_dictionary(cfg, opts.lenient or opts.skip_invalid, opts.progress)
    groups = synonym_groups(cfg, opts.lenient or opts.skip_invalid, opts.progress)
    ccfg = ChunkConfig.from_config(cfg)
    memo.forget_others({s.rel for s in sources})
    outlines = {s.rel: memo.outline(s, raw[s.rel]) for s in sources}
    failed, unrendered = _render_formulas(outlines, {s.rel: s for s in sources}, layout,
                                          cache_file, opts, stats)
    sources = [s for s in sources if s.rel not in failed]
    outlines = {rel: o for rel, o in outlines.items() if rel not in failed}
    resolver = HeadingIndex.from_rows((o.rel, o.title, o.headings) for o in outlines.values())
    tables = [(rel, t) for rel, o in sorted(outlines.items()) for t in o.tables]
    csv_names = CsvNames(tables)  # one map: chunk records and data/tables/ agree
    resolver_key = headings_key(resolver, memo.heading_digests)
    salt = f"{cfg.fingerprint('embedding')}:{PLAN_VERSION}"  # the records name the models
    salts = {s.rel: salt + unrendered_salt(outlines[s.rel].formulas, unrendered)
             for s in sources}  # (--lenient: a formula that did not render names no SVG)
    # (a watcher's memo keeps them: a save blames and judges the saved document alone)
    provenance = document_provenance(memo.history, root, {s.rel: raw[s.rel] for s in sources}) \
        if opts.provenance and not opts.corpus else {}
    covs = review_coverages(memo.history, cfg, sources, provenance, _unchecked_reason(opts))
    # shards of the previous output whose documents did not change are taken as they are
    # (a document's provenance is part of its key: a commit leaves the others' shards kept)
    keys = {s.rel: memo.chunk_key(s, raw[s.rel], ccfg, resolver_key, csv_names, salts[s.rel])
            + blame_key(memo.history, s.rel, provenance.get(s.rel)) for s in sources}
    reuse = ShardReuse(memo.disk if opts.use_cache else None, out, _reuse_context(cfg), keys,
                       {rel for rel in keys if rel not in covs})
    kept = reuse.plan(staging)  # (linked into staging at once)
    per_doc = {s.rel: drop_unrendered(memo.chunks(s, raw[s.rel], ccfg, resolver, resolver_key,
                                                  csv_names, salts[s.rel]), unrendered)
               for s in sources if shard_of(s.rel) not in kept}
    counts = {rel: len(c) for rel, c in per_doc.items()}
    for entry in kept.values():
        counts.update(entry.docs)
        memo.hits += len(entry.docs)  # their chunks are reused (as written)
    stats.documents = len(sources)
    stats.chunks = sum(counts.values())
    timer.lap("chunk")

    # CSVs the previous output holds with the same bytes are linked from it
    csvs = TableReuse(memo.disk if opts.use_cache else None, out, staging)
    stats.tables = len(render_tables(tables, layout.tables, csv_names, durable=False,
                                     place=csvs.place))
    for s in sources:  # (those of kept shards are linked with them)
        if shard_of(s.rel) not in kept:
            _write_source(layout.source, s.rel, raw[s.rel])
    built = [shipping.checked[rel] for rel in outlines if rel in shipping.checked]
    ship_images({p for r in built for _, _, p in r.images},
                {p for r in built for _, _, p in r.files}, root, layout.source)
    _warn_left_out(outlines, shipping.left_out, opts)
    timer.lap("render")

    checks = {s.rel: verified.reviewed_chunks(covs[s.rel], s, per_doc[s.rel], ccfg)
              for s in sources if s.rel in covs}
    langs = {rel: o.lang for rel, o in outlines.items()}
    records, lines = _records(per_doc, provenance, cfg, covs, checks, memo, langs)
    memo.flush()
    stats.lapsed = verified.lapsed(covs, records, {s.rel: s.key_lines for s in sources})
    timer.lap("blame")

    shared: dict[str, int] = {}  # per written shard; kept shards bring their own count
    for r in records:
        if not r["models"]:
            shared[shard_of(r["doc"])] = shared.get(shard_of(r["doc"]), 0) + 1
    stats.shared_vectors = sum(shared.values()) + sum(e.shared for e in kept.values())
    vectors, models = _embed(records, cfg, opts, stats, cache_file)
    timer.lap("embed")

    write_shards(layout, records, vectors, lines)
    linked = reuse.entries(kept)
    models = kept_models(models, kept, reuse.previous)
    _write_data(layout, sources, counts, provenance, cfg, user_dict, groups,
                langs, {rel: o.tags for rel, o in outlines.items()})
    manifest = _manifest(cfg, root, opts, models, stats, staging, {**linked, **csvs.entries},
                         started)
    write_manifest(staging, manifest, validate=False)  # validated when final, below
    # from the previous output when possible (not pinned by the manifest: see selfcheck)
    previous = out if opts.use_cache and ReleaseLayout(out).is_release() else None
    stats.derivation = materialize(staging, previous=previous)
    # computed from the derived index; data files, so the manifest lists them too (only they
    # are hashed: the rest of data/ is listed already). Page vectors first: the calibration's
    # searches use them.
    # (rows of the documents of kept shards are the previous output's)
    kept_docs = {doc for entry in kept.values() for doc in entry.docs}
    for made in pages.write_release(staging, previous=previous, kept=kept_docs):
        manifest["artifacts"][made.relative_to(staging).as_posix()] = file_entry(made)
    record = calibration.write_release(staging)  # (reads the draft: not its data files' list)
    manifest["artifacts"][record.relative_to(staging).as_posix()] = file_entry(record)
    write_manifest(staging, manifest, known={**linked, **csvs.linked})  # validated once
    timer.lap("index")
    shard_models: dict[str, set[str]] = {}
    for r in records:
        shard_models.setdefault(shard_of(r["doc"]), set()).update(r["models"])
    written = {sh: tuple(sorted(ms)) for sh, ms in shard_models.items()}
    return Written(reuse, written, counts, manifest["artifacts"], shared, csvs,
                   manifest["config"])


def _reuse_context(cfg: Config) -> str:
    """What a shard's bytes depend on besides its documents' chunk keys (`ShardReuse`): the
    settings, the formats, and the vectors key (fingerprint and revision) of every model
    the settings name."""
    emb = cfg.section("embedding")
    names = sorted({emb["model"], *emb.get("languages", {}).values()} - {None})
    prints = {name: vectors_key(model_meta(get_reference_embedder(name))) for name in names}
    return json.dumps([FORMAT_VERSION, __version__, SOURCE_COPY, _fingerprint(cfg), prints],
                      sort_keys=True)


def _unchecked_reason(opts: BuildOptions) -> str | None:
    """Why this build cannot check reviews against history (None: it can, inside Git)."""
    if opts.corpus:
        return verified.CORPUS
    return None if opts.provenance else verified.NO_HISTORY


@dataclass(frozen=True)
class Shipping:
    """What the checks found of the files documents show and link (`DocResult.images` and
    `.files`: Markdown links, reference definitions and raw HTML `<a href>`, `<img src>`
    alike) and their warnings about those a release leaves out."""

    checked: dict[str, DocResult]
    left_out: list[Finding]


def _warn_left_out(outlines: dict[str, Outline], left_out: list[Finding],
                   opts: BuildOptions) -> None:
    """`kb check`'s warning at each image link whose file the release does not ship (a Git
    LFS pointer in a clone without git-lfs, too large, a format devices do not show, no
    picture), and at each link to another file it does not ship (no PDF, or a PDF too
    large), for the documents built, so the author or CI learns what to do where `kb check`
    says it: a reference link's at its definition (`kbtools.check.assets`; the build's
    checks counted these warnings)."""
    built = {one_line_path(rel) for rel in outlines}
    found = [f for f in left_out if f.path in built]
    if opts.progress:
        for f in found:
            print(f"kb build: {f.format()}", file=sys.stderr)


def _render_formulas(outlines: dict[str, Outline], sources: dict[str, SourceDoc],
                     layout: ReleaseLayout,
                     cache_file: Path | None, opts: BuildOptions,
                     stats: BuildStats) -> tuple[set[str], set[str]]:
    """Render every formula; a formula that does not render is an error of its document
    (FindingsError), its document is skipped (--skip-invalid, returned first) or, with
    --lenient, a warning (its LaTeX returned second: no SVG of it is written). Failures are cached next to the embedding cache. LaTeX runs inside
    the build's staging dir, so a killed build's runs go with it."""
    latex = sorted({m.latex for o in outlines.values() for m in o.formulas if m.latex.strip()})
    failures: dict[str, str] = {}
    cache = cache_file.parent if cache_file is not None else None
    stats.formulas = len(render_cached(latex, layout.data, cache, failures,
                                       scratch=layout.root)) if latex else 0
    found = [f for rel, o in sorted(outlines.items())
             for f in _math_findings(o, sources[rel], failures)]
    if not found:
        return set(), set()
    if opts.lenient:
        stats.warnings += len(found)
        if opts.progress:
            for f in found:
                print(f"kb build: warning (lenient): {f.format()}", file=sys.stderr)
        return set(), set(failures)
    failed = {rel for rel, o in outlines.items()  # by name, not as findings print it
              if any(_math_problem(m, failures) for m in o.formulas)}
    if not opts.skip_invalid:
        shown = "\n".join(f.format() for f in found[:20])
        raise FindingsError(f"{plural(len(failed), 'document has', 'documents have')} formulas "
                            "that do not render; "
                            f"nothing was built (fix them or use --skip-invalid):\n{shown}")
    stats.skipped = sorted(stats.skipped + [{"doc": rel, "errors": ["math-invalid"]}
                                            for rel in failed], key=lambda d: d["doc"])
    return failed, set()


def _math_findings(o: Outline, src: SourceDoc, failures: dict[str, str]) -> list[Finding]:
    """`math-invalid` at each formula of `o` that is an error, at the column `kb check`
    says it at (`formula_columns`: its `$`; 1 where the check's scan finds no such one)."""
    whys = [_math_problem(m, failures) for m in o.formulas]
    places = formula_columns(src.body, src.body_line) if any(whys) else {}
    cols = [(places.get((m.line_start, m.latex)) or [1]).pop(0) for m in o.formulas]
    return [finding(o.rel, m.line_start, col, "error", "math-invalid", why)
            for m, col, why in zip(o.formulas, cols, whys, strict=True) if why]


def _math_problem(m: Math, failures: dict[str, str]) -> str | None:
    """Why the formula `m` is an error: its LaTeX did not render (`failures`), or it is
    inline math holding what only display math may (`inline_problem`: a `\\tag`)."""
    return failures.get(m.latex) or (None if m.display else inline_problem(m.latex))


def _records(per_doc: dict[str, list[Chunk]], provenance: dict[str, BlameRuns],
             cfg: Config, covs: dict[str, ReviewCoverage],
             reviewed: dict[str, set[verified.ChunkKey]], memo: BuildMemo,
             langs: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """Chunk records in global order, and each document's lines in its data/chunks/ shard;
    chunks of `verified: true` documents (those in `covs`) get their `verification` (see
    `kbtools.build.verified`); `langs` is each document's language (which models its chunks
    get, `kbtools.build.vector_plan`). The part that depends on the chunks alone, and the
    lines, are kept in `memo` for the next build."""
    records: list[dict[str, Any]] = []
    lines: dict[str, bytes] = {}
    for doc in sorted(per_doc):
        blame = provenance.get(doc)
        rows = []
        base = memo.records(doc, per_doc[doc])
        if base is None:
            base = [_base_record(c, models)
                    for c, models in zip(per_doc[doc], plan_models(per_doc[doc], cfg, langs[doc]),
                                           strict=True)]
            memo.keep_records(doc, per_doc[doc], base)
        for c, b in zip(per_doc[doc], base, strict=True):
            r = dict(b)
            if blame:
                r["provenance"] = history.chunk_provenance(blame, c.line_start, c.line_end)
            if doc in covs:
                r["verification"] = verified.chunk_verification(covs[doc], c, reviewed[doc])
            verified.with_section_facts(r, blame, covs.get(doc))
            rows.append(r)
        added = json.dumps([[r.get("provenance"), r.get("verification"),
                             verified.section_facts(r)] for r in rows],
                           sort_keys=True, default=str)
        lines[doc] = memo.lines(doc, per_doc[doc], rows, text_key(added))
        records.extend(rows)
    return records, lines


def _base_record(c: Chunk, models: list[str]) -> dict[str, Any]:
    r = c.to_dict()
    r.pop("metadata", None)  # stored once per doc
    r["content_hash"] = text_key(c.embed_text)
    r["models"] = models  # [] = scored by its parent's vector (kbtools.build.vector_plan)
    return r


def _embed(records: list[dict[str, Any]], cfg: Config, opts: BuildOptions, stats: BuildStats,
           cache_file: Path | None) -> tuple[Vectors, Models]:
    embedders = {key: get_reference_embedder(key)
                 for key in sorted({m for r in records for m in r["models"]})}
    vectors, models, embedded, reused = embed_records(
        records, embedders, int(cfg.get("embedding.batch_size")), cache_file, opts.progress)
    stats.embedded += embedded
    stats.reused += reused
    stats.vectors += embedded + reused
    stats.vector_models = len(embedders)
    return vectors, models


def write_shards(layout: ReleaseLayout, records: list[dict[str, Any]], vectors: Vectors,
                 lines: dict[str, bytes] | None = None) -> None:
    """data/chunks/<xx>.jsonl (JSON Lines: one record per line whatever its text holds, see
    `kbtools.fsutil.json_line`) and, per model, data/vectors/<model>/<xx>.npy in the same row
    order; `kbtools.index.materialize.read_shards` reads them back. `lines`: each document's
    records as `json_lines` already made them (`BuildMemo.lines`)."""
    by_shard: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_shard.setdefault(shard_of(r["doc"]), []).append(r)
    layout.chunks.mkdir(parents=True, exist_ok=True)
    for shard, rows in sorted(by_shard.items()):
        data = json_lines(rows) if lines is None else \
            b"".join(lines[doc] for doc in dict.fromkeys(r["doc"] for r in rows))
        layout.chunk_shard(shard).write_bytes(data)
        for model in sorted({m for r in rows for m in r["models"]}):
            mat = np.stack([vectors[f"{model}:{r['content_hash']}"] for r in rows
                            if model in r["models"]]).astype(np.float16)
            path = layout.vector_shard(model, shard)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, mat, allow_pickle=False)


def _write_data(layout: ReleaseLayout, sources: list[SourceDoc], counts: dict[str, int],
                provenance: dict[str, BlameRuns], cfg: Config, user_dict: str,
                groups: Synonyms, langs: dict[str, str],
                tags: dict[str, tuple[str, ...]]) -> None:
    """data/ besides the shards: docs.jsonl (`counts`: each document's chunk count), the BM25
    dictionary (front-matter values, the user dictionary and the synonyms' terms) and the
    synonym groups, when there are any; `langs`, `tags`: each document's language and the
    Obsidian tags its text writes (its outline's; `body_tags`, which filters add to `tags`)."""
    docs = []
    for s in sorted(sources, key=lambda s: s.rel):
        d = {"doc": s.rel, "metadata": s.meta, "n_chunks": counts[s.rel],
             "lang": langs[s.rel]}
        if tags.get(s.rel):
            d["body_tags"] = list(tags[s.rel])
        if s.rel in provenance:
            d.update(history.chunk_provenance(provenance[s.rel], 1, 10**9))
        docs.append(d)
    layout.docs.write_bytes(json_lines(docs, default=str))
    fields = set(cfg.vocabulary.dictionary)
    values = [v for s in sources for k, v in s.meta.items() if k in fields]
    terms = dictionary_terms([*values, groups.terms()], user_dict)  # one term a line, no spaces
    layout.dictionary.write_bytes("".join(t + "\n" for t in terms).encode("utf-8"))
    if groups:
        layout.synonyms.write_bytes(synonyms.dump(groups).encode("utf-8"))


def _write_source(source_dir: Path, rel: str, data: bytes) -> None:
    """Copy the bytes of a document as read into data/source/<rel>, never outside it, with
    LF newlines (`lf_newlines`: the same bytes from any checkout of the commit)."""
    target = source_dir / rel
    base = os.path.realpath(source_dir)
    if Path(rel).is_absolute() or not os.path.realpath(target).startswith(base + os.sep):
        raise KbError("refusing to write a document outside data/source", path=rel)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(lf_newlines(data))


def corpus_config(cfg: Config, corpus: Path) -> Config:
    """The settings of `cfg` applied to a foreign folder that is its own knowledge root."""
    data = dict(cfg.data)
    # the caches stay where the settings put them, never inside the foreign folder
    data["paths"] = dict(cfg.data["paths"], knowledge=".", cache=str(cfg.path("cache")))
    data["bm25"] = dict(cfg.data["bm25"], user_dict="_dict.txt")
    return Config(root=corpus.resolve(), data=data)


def _fingerprint(cfg: Config) -> str:
    """Settings that change artifacts, plus the chunker's version (and the vocabulary when it
    is not the built-in one: see `Vocabulary.recorded`)."""
    fingerprint = f"{cfg.fingerprint('chunk', 'embedding', 'index', 'bm25')}-c{CHUNKER_VERSION}"
    if cfg.vocabulary.recorded() is not None:
        fingerprint += f"-v{cfg.fingerprint('vocabulary')}"
    return fingerprint


def _manifest(cfg: Config, root: Path, opts: BuildOptions, models: Models, stats: BuildStats,
              staging: Path, known: dict[str, dict[str, Any]],
              started: str | None) -> dict[str, Any]:
    """The manifest; `known`: entries of files taken from the previous output (not hashed
    again); `started`: HEAD when the build began reading."""
    source = source_identity(root, cfg.path("knowledge"), _read_files(cfg, staging),
                             [cfg.path("assets")], started,
                             cfg.section("release").get("knowledge_base"))
    if opts.corpus:
        source["corpus"] = root.name
    stats.source_commit, stats.shallow = source["commit"], source.get("shallow") is True
    values = {k: cfg.data[k] for k in ("chunk", "embedding", "index", "bm25", "query")}
    if (vocabulary := cfg.vocabulary.recorded()) is not None:
        values["vocabulary"] = vocabulary  # what materialize and the query side read
    words = ReleaseLayout(staging).dictionary.read_text(encoding="utf-8").split()
    tokenizer = tokenizer_fingerprint(cfg.get("bm25.tokenizer"), words)
    config: dict[str, Any] = {"fingerprint": _fingerprint(cfg), "values": values}
    if serve := cfg.section("serve"):  # the web app's words for it, beside the values: a new
        config["serve"] = serve        # title is no new index (`incremental._compatible`)
    return {
        "format_version": FORMAT_VERSION,
        "kbtools_version": __version__,
        "source": source,
        "config": config,
        "models": models,
        "tokenizer": tokenizer,
        "counts": {"documents": stats.documents, "chunks": stats.chunks,
                   "formulas": stats.formulas, "tables": stats.tables,
                   "shared_vectors": stats.shared_vectors},
        "verification": {"checked": _unchecked_reason(opts) is None and source["commit"] != "none",
                         "lapsed": stats.lapsed},
        "artifacts": list_files(staging, DATA_DIR, known),
        "derived": {},
        "derived_check": SELF_CHECK,
    }


def _read_files(cfg: Config, staging: Path) -> list[str]:
    """The repository's files the build read, relative to its root: documents and images
    (their copies in data/source/ have their paths), the user dictionary, the synonyms."""
    source = ReleaseLayout(staging).source
    read = [p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()]
    for path in (cfg.root / str(cfg.get("bm25.user_dict")),
                 cfg.path("knowledge") / synonyms.SOURCE_NAME):
        if path.is_file() and path.resolve().is_relative_to(cfg.root.resolve()) \
                and not ignored_file(path, cfg.root):  # (an ignored one is not read)
            read.append(path.resolve().relative_to(cfg.root.resolve()).as_posix())
    return read

