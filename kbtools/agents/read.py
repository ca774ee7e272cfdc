"""Read one section of a knowledge document, by heading path or line range, safely.

Agents name documents by their repo-relative path (``knowledge/crops/x.md``, as cited in
search results) or by their path inside the knowledge folder (``crops/x.md``), in a
repository and in an index alike (`Knowledge.folders`). `Knowledge.resolve` refuses
anything that could escape the knowledge: absolute paths, drive letters, backslashes,
``..``, and symlinks whose target lies outside.
The same rules hold in a repository (documents under the configured knowledge directory)
and on a device (documents under the index's ``data/source``).
"""

from __future__ import annotations

import errno
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from kbtools.agents.asked import kept_holding
from kbtools.agents.citation_text import percent_decoded
from kbtools.agents.docpath import (
    Cited,
    check_doc_path,
    cited,
    linked,
    named_documents,
    same_name_clause,
    several_named,
    shown_doc,
    whole_path,
)
from kbtools.agents.heading_meaning import by_meaning
from kbtools.build.verified import coverages
from kbtools.check.engine import max_document_bytes
from kbtools.config import Config, load_config
from kbtools.corpus import DEFAULT_MAX_BYTES, SourceDoc, decode, parse_source, read_doc
from kbtools.decision import column_key
from kbtools.docfiles import MARKDOWN_SUFFIX, find_markdown
from kbtools.errors import (
    IndexLoadError,
    KbError,
    SourceError,
    UsageError,
    plural,
)
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import KbIndex
from kbtools.index.synonyms import SOURCE_NAME as SYNONYMS_SOURCE
from kbtools.index.synonyms import parse as parse_synonyms
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.heading_paths import (
    as_one_path,
    heading_parts,
    norm,
    path_matches,
    split_heading_path,
)
from kbtools.markdown.parser import custom_ids, github_slugs, heading_title, slugify
from kbtools.provenance import blame_lines, chunk_provenance
from kbtools.query.filters import shared_folders
from kbtools.query.results import Citation
from kbtools.ship.checkout import open_index

MAX_CHARS = 12_000  # one read never returns more than this many characters
MAX_LINES = 400  # nor a line range longer than this
SEVERAL = "several_sections"  # KbError key: a heading path names several sections
SEVERAL_CITED = "several_sections_cited"  # a citation's, none holding its lines


def anchored_section(parsed: Any, src: SourceDoc, anchor: str,
                     section_arg: str = "heading_path") -> Any:
    """The section of `parsed` whose heading `anchor` names (KbError, telling to name it
    as `section_arg`, when none does): its
    GitHub anchor (``32-风险等级判定表``, as `kb check` checks links), its ``{#custom-id}``,
    its heading text, which reads as its anchor (``3.2 风险等级判定表``), or else what
    `heading_path` takes (a section number, ``#3``)."""
    found = scan(src.body, src.body_line)
    titles = [heading_title(found.anchor_texts.get(line, text)) for line, text in found.headings]
    # the anchor as the heading's text composes it: a link typed or copied on macOS arrives
    # decomposed (NFD, `é` as e + U+0301), a search's heading path composed; and then as
    # heading paths compare (`norm`: width, spaces and case), when no anchor is it exactly
    given = unicodedata.normalize("NFC", anchor.strip())
    wanted = {given, slugify(given)}
    slugs = list(zip(found.headings, github_slugs(titles), strict=True))
    for loose in (False, True):
        asked = {norm(w) for w in wanted} if loose else wanted
        for (line, text), slug in slugs:
            names = {slug, *custom_ids(text)}
            if asked & ({norm(n) for n in names} if loose else names):
                sec = next((s for s in parsed.sections()
                            if s.heading_path and s.line_start == line), None)
                if sec is not None:
                    return sec
    try:  # a heading as `heading_path` takes one: its number ('#3', '#4.3') or its text
        return find_section(parsed, anchor)
    except KbError:
        pass
    known = ", ".join("#" + slug for slug in github_slugs(titles)[:20])
    raise KbError(f"no heading of {src.rel} has the anchor '#{shown_doc(anchor.strip())}' "
                  f"(its anchors: {known or 'none'}); give the section as {section_arg}",
                  key="no_section", values={"doc": src.rel, "section": shown_doc(anchor),
                                            "sections": known or "—"})


@dataclass(frozen=True)
class Knowledge:
    """Where documents may be read from."""

    base: Path  # document paths are relative to this directory
    allowed: Path  # every resolved document must lie inside this directory
    where: str = "repository"  # or "index"
    idx: KbIndex | None = None  # the index read from: its per-chunk `verified` counts
    cfg: Config | None = None  # the repository's, read without an index

    def unverified_reason(self, src: SourceDoc, line_start: int, line_end: int) -> str | None:
        """Why lines line_start..line_end of `verified: true` document `src` are not
        verified; None when they are. From an index, what its chunks over them say (a
        chunk changed after its review, a review the build could not check); in a
        repository, the review history itself (`review.lapse.review_coverage`, as a build
        judges it). Front-matter lines never are: the review compares the fields' values,
        not the lines that hold them (a YAML comment is in no field)."""
        if line_start < src.body_line:
            return (f"lines {line_start}-{min(line_end, src.body_line - 1)} are front matter, "
                    f"which a review does not cover line by line (the body starts at line "
                    f"{src.body_line})")
        if self.idx is not None:
            return self.idx.store.span_reason(src.rel, line_start, line_end)
        if self.cfg is None:
            return None
        return coverages(self.cfg, [src], {})[src.rel].line_reason(line_start, line_end)

    def provenance(self, src: SourceDoc, line_start: int, line_end: int) -> dict[str, Any]:
        """Who last changed lines line_start..line_end of `src` and the review behind it, as
        a search result says them: `last_commit`, `last_author`, `last_changed` and
        `review` (`{"commit", "by", "at"}` of the commit that verified the document, None
        when it claims no review or none holds). From an index, its chunks over the lines
        (`Store.span_provenance`); in a repository, the lines' blame and the review
        history (`review.lapse.review_coverage`, as a build reads them). A `read` used to
        say only whether the lines were verified: an agent could not cite who verified
        them, when, or from which commit, as it can a search result."""
        if self.idx is not None:
            return self.idx.store.span_provenance(src.rel, line_start, line_end)
        if self.cfg is None:
            return {"last_commit": None, "last_author": None, "last_changed": None,
                    "review": None}
        out: dict[str, Any] = dict(chunk_provenance(blame_lines(self.cfg.root, src.rel),
                                                    line_start, line_end))
        review = None
        if src.meta.get("verified") is True:
            cov = coverages(self.cfg, [src], {}).get(src.rel)
            review = cov.review.to_dict() if cov is not None and cov.review else None
        return {**out, "review": review}

    @cached_property
    def folders(self) -> tuple[str, ...]:
        """The knowledge folders (relative to `base`) a short path is tried under, outermost
        first: ``crops/x.md`` names ``knowledge/crops/x.md``.

        In a repository, the configured knowledge folder. An index keeps each document at
        its repository path but does not record the folder: there, each folder on the way
        to the one all its documents share (``knowledge`` when they lie in
        ``knowledge/crops`` and ``knowledge/equipment``; ``knowledge`` and
        ``knowledge/crops`` when all lie in ``knowledge/crops``). Found when a short path is
        first given (the index's document list), then kept.
        """
        if self.idx is not None:
            return shared_folders(str(d["doc"]) for d in self.idx.docs())
        base, allowed = self.base.resolve(), self.allowed.resolve()
        if not allowed.is_relative_to(base):
            return ()
        prefix = allowed.relative_to(base).as_posix()
        return () if prefix in ("", ".") else (prefix,)

    @cached_property
    def table_synonyms(self) -> dict[str, list[str]]:
        """The synonym groups that also name a decision table's inputs and text values
        (`kbtools.decision.match_rules`: ``temperature=24`` for 温度(℃)), keyed by
        `column_key` as a search keys them (`query.answers.input_synonyms`): the groups an
        index ships, else the repository's ``knowledge/_synonyms.txt``; none when absent or
        unreadable (`kb check` reports such a file), so `kb table eval`, MCP
        `evaluate_table` and ``/api/table/evaluate`` name columns alike."""
        if self.idx is not None:
            groups = self.idx.synonyms()
        else:
            try:
                text = (self.allowed / SYNONYMS_SOURCE).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                text = ""
            groups = parse_synonyms(text)[0]
        return {column_key(term): others for term, others in groups.mapping().items()}

    def resolve(self, doc: str, section_arg: str = "heading_path", exactly: bool = False
                ) -> Path:
        """The file of `doc`, or UsageError/KbError. `doc` is a path relative to `base` (as
        cited) or to a knowledge folder (`folders`), in a repository and in an index alike.
        `section_arg`: the caller's argument for a section, which a refused citation-as-path
        is told to use (`check_doc_path`). No file named so exactly: the one document named
        so but for case or Unicode composition (``Wheat-Scab.MD``: a phone's or a person's
        spelling; UsageError naming them when several are), unless `exactly` (a page, whose
        address is redirected to the document's own instead, `serve.nearest`)."""
        # as given, as a link's path a URL writes; composed otherwise than the file's name
        # (NFD, as macOS writes names, for an NFC file name, or the other way round)
        found, decoded = None, percent_decoded(doc)
        for given in dict.fromkeys(form for text in (doc, decoded) if text is not None
                                   for form in (text, *(unicodedata.normalize(f, text)
                                                        for f in ("NFC", "NFD")))):
            found = found or self._find(given, section_arg)
        withheld: list[str] = []
        if found is None and not exactly:
            found, withheld = self._named_otherwise(doc, section_arg)
        if found is None:
            raise KbError(f"no such document in the {self.where}: {shown_doc(doc)}"
                          + same_name_clause(withheld, self.where), key="no_document",
                          values={"doc": shown_doc(doc), "read_from": self.where,
                                  **({"named": ", ".join(withheld)} if withheld else {})})
        return found

    def _find(self, doc: str, section_arg: str) -> Path | None:
        """The file `doc` names under `base` or under a knowledge folder; None when there is
        none (`resolve` says so)."""
        rel = check_doc_path(doc, section_arg)
        allowed = self.allowed.resolve()
        found = self._existing(doc, self.base / rel, allowed)
        for folder in self.folders:
            if found is None and not rel.startswith(folder + "/"):
                found = self._existing(doc, self.base / folder / rel, allowed)
        return found

    def _named_otherwise(self, doc: str, section_arg: str) -> tuple[Path | None, list[str]]:
        """The file of the one document `doc` names but for case or Unicode composition, or
        by its file name in another folder (`named_documents`); None when none is, or when
        `doc`, so found, may be the path of a document since removed (`whole_path`, or an
        earlier release kept holding one there), with that document then unless a kept
        release holds `doc` (for the refusal to name: the path to read and cite if it is
        the one meant); UsageError naming them when several are and `doc` is no such path
        (one document of its file name or several, a whole path is refused alike)."""
        if self.idx is not None:
            names = [str(d["doc"]) for d in self.idx.docs()]
        else:
            names = [self.rel(p) for p in find_markdown([self.allowed])
                     if p.suffix == MARKDOWN_SUFFIX]
        found, by_file_name = named_documents(doc, names, self.folders)
        if found and by_file_name:
            # an old citation's path: other documents share its file name, named unless a
            # kept release holds the one cited (the refusal says to read it there)
            if self._held_before(doc):
                return None, []
            if whole_path(doc, self.folders):
                return None, found
        if len(found) > 1:
            raise several_named(doc, found, by_file_name)
        return (self._find(found[0], section_arg) if found else None), []

    def _held_before(self, doc: str) -> bool:
        """Whether an earlier release this device keeps held a document at path `doc` (as
        given or under a knowledge folder): a citation from before a sync that removed it."""
        return any(kept_holding(self.idx, d)[0]
                   for d in (doc, *(f"{f}/{doc}" for f in self.folders)))

    def _existing(self, doc: str, cand: Path, allowed: Path) -> Path | None:
        """`cand` when it is a file inside `allowed` (after following links); None when there
        is nothing there; UsageError when it leads outside, KbError when it cannot be read."""
        try:
            if not (cand.exists() or cand.is_symlink()):
                return None
            real = cand.resolve()
            is_file = real.is_file()
        except (OSError, RuntimeError) as exc:  # too long for the OS, a symlink loop
            raise KbError(f"cannot open document '{shown_doc(doc)}': "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
        if not real.is_relative_to(allowed):
            raise UsageError(f"refused document path '{shown_doc(doc)}': it lies outside the "
                             f"knowledge directory ({self.rel(self.allowed)})")
        return cand if is_file else None

    def rel(self, path: Path) -> str:
        """The citation path of a resolved file (relative to `base`)."""
        try:
            return path.relative_to(self.base).as_posix()
        except ValueError:
            return path.as_posix()

    def max_bytes(self, rel: str) -> int:
        """The largest document `rel` may be: the limit its build read documents with. In a
        repository, kb.toml `[check] max_bytes`; in an index, the size the release's manifest
        records for the file (the build accepted it under the limit it was configured with),
        at least the default limit."""
        if self.idx is not None:
            entry = self.idx.manifest.get("artifacts", {}).get(f"data/source/{rel}")
            size = entry.get("size") if isinstance(entry, dict) else None
            return max(DEFAULT_MAX_BYTES, size if isinstance(size, int) else 0)
        return max_document_bytes(self.cfg) if self.cfg is not None else DEFAULT_MAX_BYTES

    def read(self, path: Path) -> SourceDoc:
        """The document at `path` (from `resolve`), read with its build's size limit and
        named by its citation path."""
        rel = self.rel(path)
        data = ReleaseLayout(Path(self.idx.root)).data if self.idx is not None else None
        if self.idx is None or data is None or not self.base.is_relative_to(data):
            return replace(read_doc(path, self.base, self.max_bytes(rel)), rel=rel)
        # from the tree the index opened, not what its directory's name holds now (a build
        # may have swapped in a new dist/ since: its source against this index's lines)
        name = (self.base.relative_to(data) / rel).as_posix()
        try:
            raw = self.idx.read_data(name, self.max_bytes(rel))
        except OSError as exc:
            code = "file-too-large" if exc.errno == errno.EFBIG else "file-unreadable"
            raise SourceError(code, f"cannot read: {exc.strerror or exc}", path=rel) from None
        return parse_source(decode(raw)[0], path, rel)


def open_knowledge(root: Path | None = None, *, index: Path | None = None,
                   idx: KbIndex | None = None, cfg: Config | None = None) -> Knowledge:
    """Knowledge of a repository (kb.toml paths: `cfg` when the caller has read it), or of
    an index (``data/source``)."""
    if idx is None and index is not None:
        try:
            idx = open_index(index)
        except OSError as exc:  # a path too long for the OS, one through a file
            raise IndexLoadError(f"cannot open index '{shown_doc(str(index))}': "
                                 f"{exc.strerror or exc}") from None
    if idx is not None:
        source = ReleaseLayout(Path(idx.root)).source
        return Knowledge(source, source, "index", idx)
    cfg = cfg if cfg is not None else load_config(root)
    return Knowledge(cfg.root, cfg.path("knowledge"), "repository", cfg=cfg)


@dataclass(frozen=True)
class SectionText:
    doc: str
    title: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    markdown: str
    verified: bool
    truncated: bool = False
    reason: str | None = None  # why not verified, when the index says so
    subsections: tuple[str, ...] = ()
    intro: bool = False  # the section's own text alone, up to its first subsection (cited so)
    metadata: dict[str, Any] = field(default_factory=dict)
    # last_commit, last_author, last_changed and review (`Knowledge.provenance`)
    provenance: dict[str, Any] = field(default_factory=dict)

    def citation(self) -> str:
        return Citation(self.doc, self.heading_path, self.line_start, self.line_end).text()

    def to_dict(self) -> dict[str, Any]:
        return {"doc": self.doc, "title": self.title, "heading_path": list(self.heading_path),
                "line_start": self.line_start, "line_end": self.line_end,
                "citation": self.citation(), "verified": self.verified,
                "verification": {"verified": self.verified, "reason": self.reason,
                                 "review": self.provenance.get("review")},
                **{k: self.provenance.get(k) for k in ("last_commit", "last_author",
                                                       "last_changed")},
                "truncated": self.truncated, "subsections": list(self.subsections),
                "intro": self.intro,
                "markdown": self.markdown}


def find_section(doc: Any, heading_path: str | list[str] | tuple[str, ...]) -> Any:
    """The section whose heading path ends with `heading_path` (exactly one, else KbError).
    Of several, the one whose own heading is the whole string (rather than the path its
    ' > ' would split it into), else the one whose full heading path it is."""
    heading_path = as_one_path(heading_path) or ""
    parts, seps = heading_parts(heading_path)
    found = [s for s in doc.sections() if path_matches(parts, seps, s.heading_path)]
    if not found:  # "Risk level table" for 3.2 风险等级表: the same name in the other language
        found = by_meaning(doc.sections(), parts)
    if len(found) == 1:
        return found[0]
    wanted = shown_doc(heading_path.strip() if isinstance(heading_path, str) else " > ".join(parts))
    if not found:
        known = [" > ".join(s.heading_path) for s in doc.sections() if s.heading_path][:40]
        raise KbError(f"no section '{wanted}' in {doc.rel} (sections: {'; '.join(known)})",
                      key="no_section", values={"doc": doc.rel, "section": wanted,
                                                "sections": "; ".join(known) or "—"})
    exact = [s for s in found if isinstance(heading_path, str) and len(parts) > 1
             and norm(s.heading_path[-1]) == norm(heading_path)]
    full = [s for s in found if path_matches(parts, seps, s.heading_path, whole=True)]
    for preferred in (exact, full):
        if len(preferred) == 1:
            return preferred[0]
    paths = [" > ".join(s.heading_path) for s in found]
    if len(set(paths)) == 1:  # no more of the heading path can tell them apart
        lines = "; ".join(f"lines {s.line_start}-{s.line_end}" for s in found[:10])
        raise KbError(f"'{wanted}' matches {len(found)} sections in {doc.rel} with the same "
                      f"heading path '{paths[0]}'; read one by line range ({lines})", key=SEVERAL,
                      values=several(wanted, doc.rel, found[:10]))
    options = "; ".join(f"{p} (lines {s.line_start}-{s.line_end})" if paths.count(p) > 1 else p
                        for p, s in zip(paths[:10], found, strict=False))
    raise KbError(f"'{wanted}' matches {len(found)} sections in {doc.rel}; give more of the "
                  f"heading path or read by line range ({options})", key=SEVERAL,
                  values=several(wanted, doc.rel, found[:10]))


def several(section: str, doc: str, found: Sequence[Any]) -> dict[str, str]:
    """The values a `SEVERAL` error's words name (`words.error_words`): the sections
    `found` by heading path and lines, in no language's words (``A > B (13-15)``)."""
    return {"section": section, "doc": doc, "count": str(len(found)),
            "options": "; ".join(f"{' > '.join(s.heading_path)} ({s.line_start}-{s.line_end})"
                                 for s in found)}


def read_section(kn: Knowledge, doc: str, heading_path: str | list[str] | None = None,
                 line_start: int | None = None, line_end: int | None = None,
                 max_chars: int = MAX_CHARS) -> SectionText:
    """One section (with its subsections) or a line range of a document, bounded in size."""
    given, link = cited(doc), linked(doc)
    if given is not None or link is not None:  # a citation or a link: its section or lines
        if heading_path or line_start is not None or line_end is not None:
            raise UsageError(f"'{shown_doc(doc)}' is a {'link' if link else 'citation'}, which "
                             "names its section or lines itself: give the document path "
                             "alone with heading_path or line_start/line_end, or the "
                             f"{'link' if link else 'citation'} alone", key="cited_and_section",
                             values={"doc": shown_doc(doc)})
        doc = given.doc if given is not None else link[0] if link is not None else doc
    path = kn.resolve(doc)
    src = kn.read(path)
    parsed = parse(src)
    lines = parsed.lines
    last = line_count(src.text)
    sec = None
    if given is not None:
        sec = cited_section(parsed, given)
        line_start, line_end = (None, None) if sec is not None else given.lines or (None, None)
    elif link is not None:
        sec = anchored_section(parsed, src, link[1])
    wanted = split_heading_path(heading_path)
    subsections: tuple[str, ...] = ()
    intro = False
    if wanted and (line_start is not None or line_end is not None):
        raise UsageError("give either a heading path or a line range, not both",
                         key="section_and_lines")
    if sec is not None or wanted:
        sec = sec or find_section(parsed, heading_path or wanted)
        a, b, hpath = sec.line_start, sec.line_end, sec.heading_path
        subsections = tuple(s.title for s in sec.sections)
        if given is not None and given.lines and sec.sections and given.lines[1] < \
                sec.sections[0].line_start:  # its own text cited: read that, name the rest
            b = max((n for n in range(a, sec.own_end + 1) if lines[n - 1].strip()), default=a)
            intro = True
    elif line_start is not None or line_end is not None:
        a = line_start if line_start is not None else 1
        b = line_end if line_end is not None else min(last, a + MAX_LINES - 1)
        if line_start is not None and line_end is not None and b < a:
            a, b = b, a  # written from its end (`5-2`): the same lines, as the field app reads it
        if a > last:
            raise UsageError(f"line {a} is past the end of {src.rel} ({plural(last, 'line')})",
                             key="line_past_end",
                             values={"line": str(a), "doc": src.rel, "count": str(last)})
        span = {"first": str(a), "last": str(b)}
        if a < 1 or b < a:
            raise UsageError(f"bad line range {a}-{b}: lines are numbered from 1",
                             key="bad_line_range", values=span)
        if b - a + 1 > MAX_LINES:
            raise UsageError(f"line range {a}-{b} is longer than {MAX_LINES} lines; read "
                             "sections by heading instead", key="line_range_long",
                             values={**span, "limit": str(MAX_LINES)})
        b = min(b, last)
        hpath = None  # the sections the lines returned lie in (below)
    else:
        a, b, hpath = parsed.root.line_start, parsed.root.line_end, ()
        while a < b and not lines[a - 1].strip():
            a += 1
        subsections = tuple(s.title for s in parsed.root.sections)
    truncated = b - a + 1 > MAX_LINES  # a section or a document as long as no range may be
    b = min(b, a + MAX_LINES - 1)
    text = "\n".join(uncommented(parsed.lines, parsed.comments)[a - 1:b])
    if len(text) > max_chars:
        truncated = True
        text = whole_lines(text, max_chars)
        b = a + text.count("\n")
    if hpath is None:
        hpath = path_over(parsed, lines, a, b)
    # judged over the lines returned, so reading a result's own range agrees with it
    reason = kn.unverified_reason(src, a, b) if src.meta.get("verified") is True else None
    return SectionText(doc=src.rel, title=parsed.title, heading_path=tuple(hpath), line_start=a,
                       line_end=b, markdown=text,
                       verified=src.meta.get("verified") is True and reason is None,
                       reason=reason,
                       truncated=truncated, subsections=subsections, intro=intro,
                       metadata=dict(src.meta),
                       provenance=kn.provenance(src, a, b))


def cited_section(parsed: Any, given: Cited) -> Any:
    """The section a read of citation `given` reads, or None to read its lines: the section
    its heading path names that holds its lines (a table row's citation reads the whole
    table with its header, as the result's section; of several sections under one heading
    path, the one the lines lie in), the innermost when several do; when none holds them,
    the one section it names (a release moved the lines), KbError when it names several
    (the lines, in none, hold another section's text); None when it names none. A heading
    path without lines names its section alone (KbError when it names none, or several)."""
    if given.lines is None:
        return find_section(parsed, given.heading)
    first, last = given.lines
    parts, seps = heading_parts(given.heading)
    holding = [s for s in parsed.sections() if given.heading
               and path_matches(parts, seps, s.heading_path)
               and s.line_start <= first and last <= s.line_end]
    if holding:
        return min(holding, key=lambda s: s.line_end - s.line_start)
    # as `agents.named` reads a table's citation; none (no heading, or renamed): the lines say
    named = [s for s in parsed.sections() if given.heading and s.heading_path
             and path_matches(parts, seps, s.heading_path)]
    if len(named) > 1:
        spans = "; ".join(f"lines {s.line_start}-{s.line_end}" for s in named[:10])
        raise KbError(f"'{shown_doc(given.heading)}' names {len(named)} sections of {parsed.rel} "
                      f"({spans}), none holding lines {first}-{last}: it changed since it "
                      "was cited; read one by line range, or search again", key=SEVERAL_CITED,
                      values={**several(shown_doc(given.heading), parsed.rel, named[:10]),
                              "lines": f"{first}-{last}"})
    return named[0] if len(named) == 1 else None


def whole_lines(text: str, max_chars: int) -> str:
    """The first of `text`'s lines that fit in `max_chars` characters, whole. A read cut
    inside a line cited that line as returned, so the rest of it was in no read (the next
    one starts at `line_end + 1`) and a table row or a sentence came back half. A first line
    longer than `max_chars` alone has no line break to cut at: it comes back cut within
    itself, rather than nothing. Blank lines the cut leaves last are not returned (nor
    cited): they say nothing, and the next read starts with them."""
    end = text.rfind("\n", 0, max_chars + 1)  # a break just past the limit ends a whole line
    if end <= 0 or not text[:end].strip():
        return text[:max_chars]
    return text[:end].rstrip("\n")


def uncommented(lines: Sequence[str], comments: Sequence[tuple[int, int]]) -> list[str]:
    """`lines` without the Obsidian comments at `comments` (offsets into their text,
    `Document.comments`): authors' notes no reader is given. Every line stays, so line
    numbers and citations hold; a line only a comment filled is empty."""
    if not comments:
        return list(lines)
    text, parts, pos = "\n".join(lines), [], 0
    for a, b in comments:
        parts += [text[pos:a], "\n" * text.count("\n", a, b)]
        pos = b
    parts.append(text[pos:])
    return "".join(parts).split("\n")


def line_count(text: str) -> int:
    """The lines of a file's `text`: a final newline ends the last line, it starts none
    (`doctree.parse` keeps an empty line after it, which no read may return)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def path_over(doc: Any, lines: Sequence[str], a: int, b: int) -> tuple[str, ...]:
    """The heading path of lines `a`-`b`: that of the innermost section holding all their
    non-blank lines, as a chunk merged from sibling sections cites their common parent. A
    range from one section into the next is not cited as the first one's."""
    filled = [n for n in range(a, b + 1) if n <= len(lines) and lines[n - 1].strip()]
    first, end = (filled[0], filled[-1]) if filled else (a, a)
    sec = doc.root
    while True:
        inner = next((s for s in sec.sections if s.line_start <= first and end <= s.line_end),
                     None)
        if inner is None:
            return tuple(sec.heading_path)
        sec = inner
