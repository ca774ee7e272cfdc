"""`kb check`: the authoring gate used by pre-commit, CI and `kb build`.

    findings = check_paths([Path("knowledge")], load_config())

One pass per document (`analyze_document`) produces findings plus the facts needed across
documents (heading slugs, #anchor links, CSV names); `check_paths` then resolves those.
Large runs fan the per-document pass out to worker processes.

Extension points:
- `CONTENT_CHECKS`: functions `(src, scan, ctx) -> Iterable[Finding]` run on every document.
- `CheckContext.latex_problem`: `(latex) -> str | None`, called for every `$…$`/`$$…$$`
  (by default the static allowlist check plus render failures cached by earlier builds).
- `CORPUS_CHECKS`: functions `(results, ctx) -> Iterable[Finding]` run once over all documents
  (the duplicate CSV name check is one).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from kbtools.check import (
    aliases,
    anchors,
    assets,
    content,
    fm_items,
    fm_written,
    frontmatter,
    links,
    mend,
    names,
    renames,
    results_cache,
    unreleased,
    vocabulary,
    wikilinks,
    yaml11,
    yaml_syntax,
)
from kbtools.check.anchors import anchor_edit
from kbtools.check.blocks import read_blocks
from kbtools.check.cache import ScanCache, key_for, to_json
from kbtools.check.codes import CODES
from kbtools.check.context import (
    RACY_NS,
    CheckContext,
    FileStatus,
    file_status,
    max_document_bytes,
)
from kbtools.check.decision_tables import table_findings
from kbtools.check.docresult import DocResult, from_entry, to_entry
from kbtools.check.formula_gaps import formula_gaps
from kbtools.check.fscache import FsCache, git_cwd
from kbtools.check.links import AnchorTarget, Edit
from kbtools.check.results_cache import ResultsCache
from kbtools.check.verification import lapse_findings
from kbtools.config import Config
from kbtools.corpus import SourceDoc, decode, parse_source, read_source, rel_path
from kbtools.docfiles import (
    TRASH,
    conflicted_copy,
    find_markdown,
    misnamed_markdown,
    misnamed_message,
)
from kbtools.errors import SourceError
from kbtools.findings import Finding, display_path, finding, sort_findings
from kbtools.gitobjects import eol_normalized
from kbtools.ignored import forget as forget_ignored
from kbtools.ignored import ignored_entries
from kbtools.markdown.drawings import KEY as DRAWING_KEY
from kbtools.markdown.drawings import is_drawing
from kbtools.markdown.frontend import MarkdownTooDeep, Scan, scan
from kbtools.provenance import staged_paths, work_tree_top
from kbtools.render.formula import FAILURE_DIR, formula_problem
from kbtools.schemas import categories as schema_categories
from kbtools.schemas import validator_for

PARALLEL_MIN_DOCS = 300
DRAWING = "doc-drawing"
def make_context(cfg: Config, *, lenient: bool = False, schema_checks: bool = True,
                 max_bytes: int | None = None, cache: bool = False,
                 history: bool = False, outputs: tuple[Path, ...] = (),
                 staged: bool = False) -> CheckContext:
    """Settings for a run; `cache` keeps Markdown scans and per-document results in the
    kb.toml cache dir (`outputs`: folders under the root a build writes, besides dist/);
    `history` warns about verified documents changed after their review (`kb check` in Git);
    `staged`: documents in folders and link targets count only in the Git index."""
    forget_ignored()  # what Git ignores is listed afresh for this run (`kbtools.ignored`)
    configured = cfg.path("schemas")
    schemas_dir = configured if configured.is_dir() else None
    limit = max_bytes or max_document_bytes(cfg)
    rows = int(cfg.data.get("check", {}).get("max_table_rows", content.DEFAULT_MAX_TABLE_ROWS))
    categories = frozenset(schema_categories(schemas_dir))
    if schema_checks and schemas_dir is not None:
        # every schema of the repository read now: one broken (a JSON syntax error) stopped
        # kb check only once a document of its category came, not in the commit breaking it
        for name in ("frontmatter", *(f"categories/{c}" for c in sorted(categories))):
            validator_for(name, schemas_dir)
    tracked = staged_paths(cfg.root) if staged else None
    typed_in = git_cwd(work_tree_top(cfg.root), Path.cwd()) if staged else None
    cache_dir = cfg.cache_dir() if cache else None
    results = None
    if cache_dir is not None and CONTENT_CHECKS == BUILT_IN_CHECKS:  # a plug-in may depend on anything
        settings = {"lenient": lenient, "schema_checks": schema_checks, "max_bytes": limit,
                    "max_table_rows": rows,
                    "knowledge": str(cfg.path("knowledge")), "assets": str(cfg.path("assets")),
                    "categories": sorted(categories), "staged": sorted(tracked or ()),
                    "git_cwd": typed_in}
        written = [cfg.path("dist"), cache_dir, *outputs]  # what the run or a build writes
        settings["ignored"] = ignored_entries(cfg.root, written)
        results = ResultsCache.open(cache_dir, cfg.root, settings, schemas_dir,
                                    cache_dir / FAILURE_DIR, written)
    return CheckContext(root=cfg.root, schemas_dir=schemas_dir, categories=categories,
                        fs=FsCache(cfg.root, tracked=tracked, git_cwd=typed_in,
                                   outputs=_below(cfg.root, [cfg.path("dist"),
                                                             cfg.path("cache"), *outputs])),
                        lenient=lenient,
                        schema_checks=schema_checks, max_bytes=limit, max_table_rows=rows,
                        latex_problem=partial(formula_problem,
                                              failure_cache=cfg.path("cache") / FAILURE_DIR),
                        scans=ScanCache.load(cache_dir),
                        history=cfg if history else None, knowledge=cfg.path("knowledge"),
                        user_dict=cfg.root / str(cfg.get("bm25.user_dict")),
                        assets=cfg.path("assets"), dist=cfg.path("dist"), results=results)


def _below(root: Path, folders: list[Path]) -> frozenset[str]:
    """The `folders` within `root`, root-relative (those outside it left out)."""
    found = set()
    for folder in folders:
        try:
            rel = folder.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        if rel != ".":
            found.add(rel)
    return frozenset(found)


def _decision_tables(src: SourceDoc, scan: Scan, ctx: CheckContext) -> Iterable[Finding]:
    """Overlapping, uncovered or malformed rules in `<!-- decision: … -->` tables."""
    if "decision:" not in src.body:
        return []

    return [finding(src.rel, line, 1, "error" if code == "decision-malformed" else "warning",
                    code, message) for line, code, message in table_findings(src)]


def _supersedes(src: SourceDoc, scan: Scan, ctx: CheckContext) -> Iterable[Finding]:
    """`supersedes:` naming a document that does not exist."""
    if ctx.knowledge is None or "supersedes" not in src.meta:
        return []
    return vocabulary.supersedes_findings(src, ctx.root, ctx.knowledge, ctx.fs.committed,
                                          ctx.fs.not_staged)


ContentCheck = Callable[[SourceDoc, Scan, CheckContext], Iterable[Finding]]
CorpusCheck = Callable[[list[DocResult], CheckContext], Iterable[Finding]]
CONTENT_CHECKS: list[ContentCheck] = [_decision_tables, _supersedes]
BUILT_IN_CHECKS = list(CONTENT_CHECKS)
CORPUS_CHECKS: list[CorpusCheck] = []


def analyze_document(src: SourceDoc, ctx: CheckContext,
                     extra: Iterable[content.Problem] = ()) -> DocResult:
    """Every single-document check; cross-document anchors are returned, not resolved."""
    out: list[Finding] = []
    rel = src.rel

    def add(code: str, level: str, line: int, col: int, message: str) -> None:
        out.append(finding(rel, line, col, ctx.level(code, level), code, message))

    for code, level, line, col, message in extra:
        add(code, level, line, col, message)
    if is_drawing(src.meta):  # no document: its front matter and links are the plugin's
        add(DRAWING, "warning" if ctx.lenient else "error", src.key_lines.get(DRAWING_KEY, 1),
            1, names.drawing_message(src.rel, src.meta.get(DRAWING_KEY)))
        ctx.slugs[rel] = frozenset()
        return DocResult(src.path, rel, tuple(out), frozenset())
    for code, line, col, message in frontmatter.parse_problems(src, ctx.schemas_dir,
                                                               ctx.categories):
        add(code, "warning" if code in frontmatter.WARNING_CODES else "error", line, col, message)
    if ctx.schema_checks:
        try:
            problems = frontmatter.schema_problems(src, ctx.schemas_dir, ctx.categories)
        except RecursionError:
            problems = [("fm-value", 1, 1, "front matter nests too deeply to validate")]
    else:
        problems = frontmatter.schema_free_problems(src)
    for code, line, col, message in problems:
        add(code, "error", line, col, message)
    schemas = partial(frontmatter.schema_validators, src.meta, ctx.schemas_dir,
                      ctx.categories) if ctx.schema_checks else None
    yaml_problems, yaml_edits = yaml11.yaml11_check(src, problems, schemas)
    for code, line, col, message in yaml_problems:
        add(code, "warning", line, col, message)
    has_fm = src.fm_end_line > 0
    for problem in content.body_problems(src.body, src.body_line, has_fm):
        add(*problem)
    new_scan = None
    key = key_for(src.body, src.body_line) if ctx.scans.path else ""
    cached = ctx.scans.get(key) if key else None
    if cached is not None:
        result = cached
    else:
        try:
            result = scan(src.body, src.body_line)
        except RecursionError:  # pathological nesting: report instead of crashing
            add("markdown-too-deep", "error", src.body_line, 1,
                "Markdown nests too deeply to parse")
            return DocResult(src.path, rel, tuple(out))
        except MarkdownTooDeep as exc:
            add("markdown-too-deep", "error", exc.line, 1, str(exc))
            return DocResult(src.path, rel, tuple(out))
        if key:
            new_scan = (key, to_json(result))
    gaps = formula_gaps(result.stray_dollars, src.text.split("\n")) \
        if len(result.stray_dollars) > 1 else []
    for problem in content.scan_problems(result, ctx.latex_problem, ctx.max_table_rows, gaps):
        add(*problem)
    for problem in content.bidi_problems(src.text, src.fm_end_line,
                                         (line for line, _ in result.headings)):
        add(*problem)
    for problem in content.conflict_problems(src.text, result.fenced):
        add(*problem)
    anchors: list[AnchorTarget] = []
    edits: list[Edit] = [*yaml_edits, *mend.scan_edits(result.hash_lines, result.spaced),
                         *mend.blank_line_edits(result.swallowed, src.text)]
    edits.extend([*yaml_syntax.syntax_edits(src), *fm_items.joined_edits(src)])
    edits.extend(edit for gap in gaps for edit in gap.edits(src.text.split("\n")))
    if ctx.schema_checks:
        edits.extend([*frontmatter.schema_edits(src, ctx.schemas_dir),
                      *fm_written.value_edits(src)])
    if any(e.code == "fm-missing" for e in src.errors):
        edits.extend(e for e in [mend.misplaced_edit(src.text)] if e is not None)
    images: list[assets.ImageLink] = []
    files: list[assets.ImageLink] = []
    missing: list[links.Missing] = []
    typora = links.typora_root(src.meta)
    for ref in result.refs:
        ref_problems, anchor = links.check_ref(ref, rel, ctx.fs, typora)
        if not ref_problems and (shown := links.image_file(ref, rel, ctx.fs)) is not None:
            images.append((ref.line, ref.col, shown))
        elif not ref_problems and (linked := links.linked_file(ref, rel, ctx.fs)) is not None:
            files.append((ref.line, ref.col, linked))
        for p in ref_problems:
            if p.edit is None or not p.edit.told_with_anchors:  # else made with the anchors
                add(p.code, p.level, ref.line, ref.col, p.message)
            if p.edit:
                edits.append(p.edit)
            missing.extend([p.missing] if p.missing else [])
        if anchor is not None:
            anchors.append(anchor)
            if not any(p.edit for p in ref_problems):  # else a path fix settles the anchor
                edits.extend(e for e in [anchor_edit(ref, anchor)] if e is not None)
    for line, col, p in wikilinks.check_wikilinks(result.wikilinks, rel, ctx.fs,
                                                  wiki_folders(ctx)):
        if p.edit is None or not p.edit.told_with_anchors:  # else made with the anchors,
            add(p.code, p.level, line, col, p.message)  # when the note's headings are known
        edits.extend([p.edit] if p.edit else [])
        missing.extend([p.missing] if p.missing else [])
        if p.file:  # a picture or a file it names ships, as a standard link's
            (images if links.is_picture(p.file) else files).append((line, col, p.file))
    slugs = result.slugs()
    ctx.slugs[rel] = slugs
    for check in CONTENT_CHECKS:
        try:
            out.extend(check(src, result, ctx))
        except Exception as exc:  # a plug-in bug must not hide the other findings
            name = getattr(check, "__name__", repr(check))
            add("check-failed", "error", 1, 1, f"check {name} failed: {type(exc).__name__}: {exc}")
    return DocResult(src.path, rel, tuple(out), slugs, tuple(anchors),
                     tuple(result.csv_names), tuple(edits), tuple(images), new_scan,
                     files=tuple(files), missing=tuple(missing))


def wiki_folders(ctx: CheckContext) -> tuple[Path, Path]:
    """The folders a wikilink's target is searched in: knowledge and assets."""
    return ctx.knowledge or ctx.root / "knowledge", ctx.assets or ctx.root / "assets"


def check_document(src: SourceDoc, ctx: CheckContext) -> list[Finding]:
    """All findings for one already-read document (anchors in other files read lazily)."""
    result = analyze_document(src, ctx)
    return sort_findings([*result.findings, *resolve_anchors([result], ctx)])


def check_file(path: Path, ctx: CheckContext) -> DocResult:
    """Read one file and run every single-document check on it. Never raises.

    The file is read with `kbtools.corpus.read_source`: outside the repository (a symlink),
    not a regular file, over the size limit or unreadable → one finding, nothing read.
    A file named explicitly that lies outside the repository is read (no root to stay in).
    """
    status = file_status(path) if ctx.statuses is not None else None
    if status is not None and (quick := _unchanged(path, status[0], ctx)) is not None:
        return quick
    rel = rel_path(path, ctx.root)
    early: list[content.Problem] = []
    if display_path(rel) != rel:
        early.append(("path-not-utf8", "error", 1, 1,
                      "file name is not valid UTF-8 (rename the file)"))
    if not rel.startswith("/"):  # a name every author's checkout can hold
        twins = ctx.fs.twins(rel)
        early.extend((code, level, 1, 1, message) for code, level, message
                     in names.document_name_problems(rel, twins))
        if (shared := _shared_name(rel, twins, ctx)) is not None:
            early.append(("path-shared-name", "warning", 1, 1, shared))
    if misnamed_markdown(path):
        early.append(("file-extension", "error", 1, 1, misnamed_message(path)))
        return _only(path, rel, early, ctx, read=False)
    if (original := conflicted_copy(path.name)) is not None:
        early.append(("conflicted-copy", "error", 1, 1, names.conflicted_message(
            original, os.path.lexists(path.with_name(original)))))
        return _only(path, rel, early, ctx, read=False)
    try:
        raw = read_source(path, None if rel.startswith("/") else ctx.root, ctx.max_bytes)
    except SourceError as exc:
        early.append((exc.code, "error", 1, 1, exc.message))
        return _only(path, rel, early, ctx, read=False)
    # a file outside the root, or one whose name is not text, is checked afresh every time
    cache = ctx.results if not rel.startswith("/") and display_path(rel) == rel else None
    key = ""
    if cache is not None:
        key = cache.key_for(rel, raw)
        kept = ctx.kept.get(rel) if ctx.kept is not None else None
        if kept is not None and kept[0] == key and kept[1].path == path \
                and (kept[1].source is not None or not ctx.keep_sources):
            hit: DocResult | None = kept[1]
        else:
            entry = cache.get(rel, key)
            hit = from_entry(path, rel, entry)
            if hit is not None and ctx.keep_sources:  # the front matter as loaded then
                front = results_cache.decode_front(entry.get("m")) if entry else None
                hit = dataclasses.replace(
                    hit, source=(parse_source(decode(raw)[0], path, rel, front), raw))
        if hit is not None:
            ctx.slugs[rel] = hit.slugs
            if ctx.kept is not None:
                ctx.kept[rel] = (key, hit)
                _keep_status(path, status, rel, key, ctx)
            return hit
        ctx.fs.touched = []
    try:
        result, src = _check_read(path, rel, raw, early, ctx)
    finally:
        touched, ctx.fs.touched = ctx.fs.touched, None
    if cache is not None and touched is not None and cache.covers(touched):
        if ctx.kept is not None:
            ctx.kept[rel] = (key, result)
            _keep_status(path, status, rel, key, ctx)
        result = dataclasses.replace(result, new_result=(rel, key, to_entry(result, src)))
    return result


def _shared_name(rel: str, twins: list[str], ctx: CheckContext) -> str | None:
    """The warning for document `rel` of the knowledge folder when another document there
    has its file name (`names.shared_name_message`); None otherwise."""
    if ctx.knowledge is None or not rel.endswith(".md"):
        return None
    folder = rel_path(ctx.knowledge, ctx.root)
    if not rel.startswith(folder + "/"):
        return None
    same = ctx.fs.files_named(folder).get(names.disk_key(rel.rsplit("/", 1)[-1]), ())
    return names.shared_name_message(rel, [o for o in same if o != rel and o not in twins])


def _unchanged(path: Path, status: FileStatus, ctx: CheckContext) -> DocResult | None:
    """The kept result of a regular file whose status is the one it had when it was read
    under the same results-cache context (settings, schemas, recorded formula failures and
    every path of the tree are part of it): its bytes are those of then, not read again."""
    if ctx.statuses is None or ctx.kept is None or ctx.results is None \
            or not stat.S_ISREG(status[2]):
        return None
    seen = ctx.statuses.get(os.fspath(path))
    if seen is None or seen[0] != status or seen[3] != ctx.results.context:
        return None
    kept = ctx.kept.get(seen[1])
    if kept is None or kept[0] != seen[2] or kept[1].path != path \
            or (kept[1].source is None and ctx.keep_sources):
        return None
    ctx.slugs[seen[1]] = kept[1].slugs
    return kept[1]


def _keep_status(path: Path, status: tuple[FileStatus, int] | None, rel: str, key: str,
                 ctx: CheckContext) -> None:
    """Remember the status `path` had before it was read (with the result's key), unless it
    changed too recently to tell a later change by its status."""
    if ctx.statuses is not None and ctx.results is not None and status is not None \
            and status[0][4] < status[1] - RACY_NS:
        ctx.statuses[os.fspath(path)] = (status[0], rel, key, ctx.results.context)


def _check_read(path: Path, rel: str, raw: bytes, early: list[content.Problem],
                ctx: CheckContext) -> tuple[DocResult, SourceDoc | None]:
    """The result of one read document, and the document (None: not parsed)."""
    problems, go_on = content.raw_problems(raw, ctx.max_bytes)
    early.extend(problems)
    if not go_on:
        return _only(path, rel, early, ctx), None
    text, enc = decode(raw)
    legacy = content.legacy_encoding(raw) if "not-utf8" in enc else None
    early.extend(content.encoding_problems(enc, text, legacy, raw))
    if legacy is not None:  # every path and word of it would be read wrong: nothing more
        return _only(path, rel, early, ctx), None
    src = parse_source(text, path, rel)
    result = dataclasses.replace(analyze_document(src, ctx, early),
                                 aliases=tuple(aliases.note_aliases(src.meta)))
    return (dataclasses.replace(result, source=(src, raw)) if ctx.keep_sources else result), src


def _only(path: Path, rel: str, problems: list[content.Problem], ctx: CheckContext, *,
          read: bool = True) -> DocResult:
    return DocResult(path, rel, tuple(finding(rel, line, col, ctx.level(code, level), code, msg)
                                      for code, level, line, col, msg in problems), read=read)


def resolve_anchors(results: list[DocResult], ctx: CheckContext) -> list[Finding]:
    """`link-anchor` findings of `results`, and those of their wikilinks whose fix writes
    an anchor (what it writes depends on the note's headings: `kbtools.check.anchors`)."""
    for res in results:
        if res.slugs is not None:
            ctx.slugs[res.rel] = res.slugs
    slugs_of = partial(anchors.read_slugs, known=ctx.slugs, root=ctx.root,
                       max_bytes=ctx.max_bytes)
    blocks_of = partial(read_blocks, known=ctx.blocks, root=ctx.root, max_bytes=ctx.max_bytes)
    return [f for res in results
            for f in anchors.anchor_findings(res.rel, res.anchors, res.edits, slugs_of,
                                             blocks_of)]


def edit_findings(rel: str, edits: Sequence[Edit], ctx: CheckContext) -> list[Finding]:
    """The findings of edits of the document `rel` made once the headings and blocks of the
    notes they link are read (`Edit.told_with_anchors`; a wikilink naming a note by its
    alias: `kbtools.check.aliases.resolve`)."""
    return resolve_anchors([DocResult(Path(rel), rel, edits=tuple(edits))], ctx)


def csv_name_check(results: list[DocResult], ctx: CheckContext) -> list[Finding]:
    names = [(r.rel, line, name) for r in results for line, name in r.csv_names]
    return [finding(doc, line, 1, "error", "table-csv-duplicate", message)
            for doc, line, message in content.duplicate_csv_names(names)]


def lapsed_verification(results: list[DocResult], ctx: CheckContext) -> list[Finding]:
    """`verification-lapsed` warnings (only when the context asks for history)."""
    if ctx.history is None:
        return []
    return lapse_findings(ctx.history, [r.rel for r in results
                                        if r.read and not r.rel.startswith("/")])


def image_check(results: list[DocResult], ctx: CheckContext) -> list[Finding]:
    """Images and linked files the release would leave out (`kbtools.check.assets`)."""
    return assets.image_findings([(r.rel, r.images) for r in results], ctx.root, ctx.level,
                                 [(r.rel, r.files) for r in results])


def committed_eol(findings: list[Finding], root: Path) -> list[Finding]:
    """`findings` without the `encoding-crlf` warnings of files whose CRLF Git turns into LF
    when they are committed (`gitobjects.eol_normalized`: a Windows team's ``* text=auto
    eol=crlf`` checks files out with CRLF on purpose): only line endings a commit would
    keep are flagged. Kept out of the per-document results, which do not depend on Git."""
    crlf = {f.path for f in findings if f.code == "encoding-crlf"}
    if not crlf:
        return findings
    normalized = eol_normalized(root, crlf)
    return [f for f in findings if f.code != "encoding-crlf" or f.path not in normalized]


CORPUS_CHECKS.append(csv_name_check)
CORPUS_CHECKS.append(image_check)
CORPUS_CHECKS.append(lapsed_verification)

_WORKER_CTX: CheckContext | None = None


def _leftover(path: Path, ctx: CheckContext) -> Finding:
    """The warning for an editor's backup or a trashed note `find_markdown` skipped."""
    original = None if TRASH in path.parts else names.backup_original(path.name)
    exists = original is not None and os.path.lexists(path.with_name(original))
    return finding(rel_path(path, ctx.root), 1, 1, "warning", "editor-leftover",
                   names.leftover_message(original, exists))


def _work(paths: list[Path]) -> list[DocResult]:
    assert _WORKER_CTX is not None
    return [check_file(p, _WORKER_CTX) for p in paths]


def analyze_files(files: list[Path], ctx: CheckContext, jobs: int | None = 1) -> list[DocResult]:
    """check_file over many files; `jobs=None` forks workers for large runs, 1 never forks."""
    if jobs is None:  # fork only when there is a lot to parse (a warm cache makes it cheap)
        to_parse = len(files) - ctx.scans.size()
        jobs = min(os.cpu_count() or 1, 4) if to_parse >= PARALLEL_MIN_DOCS else 1
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [check_file(p, ctx) for p in files]
    global _WORKER_CTX
    _WORKER_CTX = ctx
    try:
        size = max(16, len(files) // (jobs * 8))
        batches = [files[i:i + size] for i in range(0, len(files), size)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return [r for batch in pool.imap(_work, batches) for r in batch]
    finally:
        _WORKER_CTX = None


def check_results(paths: list[Path], ctx: CheckContext,
                  jobs: int | None = 1) -> tuple[list[DocResult], list[Finding]]:
    named = {Path(p) for p in paths if not Path(p).is_dir()}  # checked even if untracked
    leftovers: list[Path] = []
    found = find_markdown([Path(p) for p in paths], leftovers)
    files = [f for f in found if not vocabulary.is_data_file(f, ctx.user_dict)  # not documents
             and (f in named or ctx.fs.committed(rel_path(f, ctx.root)))
             and (f in named or not _built_copy(f, paths, ctx.dist))]
    results = analyze_files(files, ctx, jobs)
    ctx.scans.save(dict(r.new_scan for r in results if r.new_scan))
    if ctx.results is not None:
        ctx.results.save(r.new_result for r in results if r.new_result)
    findings = committed_eol([f for r in results for f in r.findings], ctx.root)
    findings.extend(_leftover(f, ctx) for f in leftovers
                    if ctx.fs.committed(rel_path(f, ctx.root)))
    escaped = {f.path for f in findings if f.code == "path-symlink-escape"}  # not read
    findings.extend(unreleased.unreleased_findings([Path(p) for p in paths], ctx.root,
                                                   ctx.knowledge, ctx.dist, ctx.fs.committed,
                                                   ctx.level, escaped))
    findings.extend(resolve_anchors(results, ctx))
    told = renames.hints([(r.rel, m) for r in results for m in r.missing], ctx.root, ctx.fs,
                         partial(anchors.read_slugs, known=ctx.slugs, root=ctx.root,
                                 max_bytes=ctx.max_bytes),
                         wikilinks.search_trees(ctx.fs, wiki_folders(ctx)),
                         ctx.fs.outputs)
    if told:  # what Git history says of missing targets (not cached: history moves)
        findings = renames.retold(findings, told)
        results = [dataclasses.replace(r, edits=r.edits + renames.edits_for(told, r.rel))
                   for r in results]
    results, findings = aliases.resolve(results, findings, ctx.knowledge, ctx.root,  # [[泵手册]]
                                        ctx.max_bytes, told, (paths, found),
                                        partial(edit_findings, ctx=ctx))
    for check in CORPUS_CHECKS:
        findings.extend(check(results, ctx))
    if ctx.knowledge is not None:
        findings.extend(vocabulary.data_file_findings(paths, ctx.knowledge, ctx.user_dict,
                                                      ctx.root, ctx.max_bytes))
    return results, sort_findings(findings)


def _built_copy(path: Path, given: list[Path], dist: Path | None) -> bool:
    """Is `path` a build's copy of a document (under dist/, `kb check .` at the kb root), not
    asked for by a folder inside dist/ itself?"""
    if dist is None or not path.absolute().is_relative_to(dist.absolute()):
        return False
    return not any(Path(p).absolute().is_relative_to(dist.absolute()) for p in given)


def check_paths(paths: list[Path], cfg: Config, *, lenient: bool = False,
                schema_checks: bool = True, max_bytes: int | None = None,
                jobs: int | None = 1, cache: bool = False,
                history: bool = False) -> list[Finding]:
    """Findings for every Markdown file under `paths`, sorted by (path, line, col, code).

    `jobs=None` forks worker processes for large runs; the default (1) never forks, which
    is the safe choice inside processes that run threads (kb watch, the MCP server).
    `history`: `verification-lapsed` warnings, as `kb check` gives them inside Git.
    """
    ctx = make_context(cfg, lenient=lenient, schema_checks=schema_checks, max_bytes=max_bytes,
                       cache=cache, history=history)
    return check_results(paths, ctx, jobs)[1]


__all__ = ["CODES", "CheckContext", "DocResult", "CONTENT_CHECKS", "CORPUS_CHECKS",
           "FileStatus", "check_paths", "check_document", "check_file", "file_status",
           "make_context", "max_document_bytes"]
