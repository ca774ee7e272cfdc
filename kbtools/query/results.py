"""What a search returns: typed results whose ``to_dict()`` is the JSON contract.

`SearchResponse.to_dict()` is exactly what `kb query --json` prints (keys in this order):
``format`` (`QUERY_FORMAT`), ``query``, ``release``, ``no_answer``, ``filters``, ``results``,
then ``condensed`` when the question was longer than is searched (``{"question_chars", "read_chars", "searched_chars",
"max_searched_chars"}``: ``query`` is then the part searched, `kbtools.query.question`),
``reason`` when there is no answer (with ``reason_values`` naming the filters that leave
nothing when it is `FILTERED_OUT`) and ``took_ms`` when retrieval ran. Each result ends with its
``citation`` text (``doc:12-20 § A > B``), the same in `kb query --json`, ``/api/search`` and
the MCP ``search`` tool, and taken back as a document by ``read`` and table evaluation. A
`Citation` is the one place citation text is made, for people (`kb query`) and for agents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbtools.index.reader import ReleaseInfo
from kbtools.markdown.drawings import drawing_title

# the version of the JSON of a search (`SearchResponse.to_dict`), documented field by field in
# docs/retrieval.md ("`kb query --json`"): raised when a field is removed, renamed or changes
# meaning, not when one is added
QUERY_FORMAT = 1

# the names a question holds that no document does, said by name up to this many (then
# "and N more"): a line on a phone, and what an agent passes on to the user
NAMES_SHOWN = 8
# why a search has nothing to search when its filters leave no chunk (`SearchResponse.reason`,
# a stable key); `SearchResponse.emptied_by` names the filters
FILTERED_OUT = "no chunk matches the filters"
# the filters keep chunks, none relevant enough, and the question searched without them is
# answered: the filters, not the knowledge, left it without an answer
FILTERED_AWAY = "nothing relevant among the documents the filters keep"
# the commit stamped on a passage with lines not yet committed (`kbtools.provenance.UNCOMMITTED`,
# not imported: GitPython stays off the query path)
UNCOMMITTED = "uncommitted"


def shown_title(meta: dict[str, Any], doc: str) -> str:
    """The title a document is shown and cited under: its front-matter `title` as text (a
    number or a date as written by YAML, ``2024``), else its path when it has none, an
    empty or blank one, or one that is no single value (a list, a mapping: a foreign corpus
    read with ``--lenient``; an Obsidian Excalidraw drawing's: its name, `drawing_title`). A
    results page or a document page never shows an empty heading, and a search's JSON
    `title` is always a string."""
    title = meta.get("title")
    if isinstance(title, bool) or isinstance(title, (list, dict, tuple, set)) or title is None:
        return drawing_title(meta, doc) or doc
    return str(title).strip() or drawing_title(meta, doc) or doc


@dataclass(frozen=True)
class Citation:
    """Where a passage lies: document path, heading path and 1-based inclusive line range."""

    doc: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int

    def text(self) -> str:
        """``doc:12-20 § Heading > Subheading``: what agents quote."""
        where = " > ".join(self.heading_path)
        return f"{self.doc}:{self.line_start}-{self.line_end}" + (f" § {where}" if where else "")

    def display(self) -> str:
        """``doc › Heading › Subheading (lines 12–20)`` (``(line 7)`` for one line): what
        `kb query` shows a person."""
        path = " › ".join([self.doc, *self.heading_path])
        if self.line_start == self.line_end:
            return f"{path} (line {self.line_start})"
        return f"{path} (lines {self.line_start}–{self.line_end})"


@dataclass(frozen=True)
class SearchResult:
    """One cited passage. ``why`` explains its rank (retriever ranks and scores, boosts,
    collapse, rerank score, matched question terms).

    ``verified`` is per chunk: true only when the passage's document is verified and the
    passage has not changed since that review. ``verification`` says why:
    ``{"verified", "status" (verified|lapsed|unchecked|unverified), "reason", "review"}``
    (reason e.g. ``changed after review on <date> by <author> (…)``).

    ``outdated``: the document's ``valid_until`` lies before the day of the search (possibly
    outdated; ranked lower, `kbtools.query.freshness`); ``superseded_by``: the documents that
    declare ``supersedes:`` this one."""

    rank: int
    score: float
    chunk_id: str
    citation: Citation
    title: str
    kind: str
    text: str
    verified: bool
    source: Any  # the document's front-matter `source`, as written
    metadata: dict[str, Any]
    links: list[Any]
    extra: dict[str, Any]
    last_commit: str | None
    last_author: str | None
    last_changed: str | None
    why: dict[str, Any]
    verification: dict[str, Any] = field(default_factory=dict)
    evaluation: dict[str, Any] | None = None  # a decision table evaluated on the question
    more: tuple[dict[str, Any], ...] = ()  # more chunks of this section, collapsed into it
    outdated: bool = False  # the document's valid_until has passed: possibly outdated
    superseded_by: tuple[str, ...] = ()  # documents that declare they supersede this one

    @property
    def evaluated(self) -> bool:
        """The passage is a decision table evaluated on the question's values."""
        return self.evaluation is not None

    @property
    def reason(self) -> str | None:
        """Why the passage is not verified (None when it is, or when nothing was recorded)."""
        return None if self.verified else self.verification.get("reason")

    @property
    def doc(self) -> str:
        return self.citation.doc

    @property
    def heading_path(self) -> tuple[str, ...]:
        return self.citation.heading_path

    @property
    def line_start(self) -> int:
        return self.citation.line_start

    @property
    def line_end(self) -> int:
        return self.citation.line_end

    def to_dict(self) -> dict[str, Any]:
        """The result's JSON, its citation text last: every surface gives the same string
        (`Citation.text`), so no caller assembles one from the fields before it."""
        out = {
            "rank": self.rank,
            "score": self.score,
            "chunk_id": self.chunk_id,
            "doc": self.citation.doc,
            "title": self.title,
            "heading_path": list(self.citation.heading_path),
            "line_start": self.citation.line_start,
            "line_end": self.citation.line_end,
            "kind": self.kind,
            "text": self.text,
            "verified": self.verified,
            "verification": self.verification or {"verified": self.verified, "reason": None},
            "source": self.source,
            "metadata": self.metadata,
            "links": self.links,
            "extra": self.extra,
            "last_commit": self.last_commit,
            "last_author": self.last_author,
            "last_changed": self.last_changed,
            "why": self.why,
            "evaluated": self.evaluated,
            "more": [dict(m) for m in self.more],
            "outdated": self.outdated,
            "superseded_by": list(self.superseded_by),
        }
        if self.evaluation is not None:
            out["evaluation"] = self.evaluation
        out["citation"] = self.citation.text()
        return out


@dataclass(frozen=True)
class SearchFilters:
    """What narrowed or boosted the search: explicit ``where`` filters, verified-only,
    routed front-matter values (and aliases); once retrieval ran, the question terms the
    index never saw, the terms expanded with synonyms (``expanded``, when any) and the
    reranker, when one was used. Its JSON names the first `NAMES_SHOWN` unknown terms and
    counts the rest in ``unknown_terms_more`` (absent when none)."""

    where: tuple[str, ...] = ()
    verified_only: bool = False
    routed: tuple[dict[str, str], ...] = ()
    reranked_by: str | None = None
    unknown_terms: tuple[str, ...] | None = None
    # question terms expanded with their synonyms or a document's title (kbtools.query.expansion)
    expanded: tuple[dict[str, Any], ...] = ()
    # values of ``=`` / ``!=`` filters no document holds, while their filter keeps some
    # (``crop=玉木`` of crop=小麦,玉木), each with the filters it may mean (``crop=玉米``):
    # `kbtools.query.filters.unheld_values`
    unheld: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # ``!=`` filters whose value no document holds nor resembles (``crop!=玉米`` on a
    # knowledge of wheat): they exclude nothing, as meant; a note (`split_unheld`)
    excludes_nothing: tuple[str, ...] = ()
    # document values an order on a percentage leaves out (``湿度: 0.9`` beside ``湿度>=80%``:
    # a fraction or 0.9 %), `kbtools.query.filters.fractions_left_out`; a note
    fractions_left_out: tuple[str, ...] = ()
    # document values of 度 alone a filter reads as ℃, their field holding a temperature
    # (``角度: 30度 (a.md)`` beside another's ``角度: 25℃``),
    # `kbtools.query.filter_fields.degrees_as_celsius`; a note
    degrees_as_celsius: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"where": list(self.where), "verified_only": self.verified_only,
                               "routed": [dict(r) for r in self.routed]}
        if self.reranked_by is not None:
            out["reranked_by"] = self.reranked_by
        if self.unknown_terms is not None:  # capped as `not_in_knowledge` is: a pasted log
            out["unknown_terms"] = list(self.unknown_terms[:NAMES_SHOWN])  # holds hundreds
            if len(self.unknown_terms) > NAMES_SHOWN:
                out["unknown_terms_more"] = len(self.unknown_terms) - NAMES_SHOWN
        if self.expanded:
            out["expanded"] = [dict(e) for e in self.expanded]
        if self.unheld:
            out["unheld"] = [{"filter": f, "did_you_mean": list(m)} for f, m in self.unheld]
        if self.excludes_nothing:
            out["excludes_nothing"] = list(self.excludes_nothing)
        if self.fractions_left_out:
            out["fractions_left_out"] = list(self.fractions_left_out[:NAMES_SHOWN])
        if self.degrees_as_celsius:
            out["degrees_as_celsius"] = list(self.degrees_as_celsius[:NAMES_SHOWN])
        return out

    def excludes_nothing_text(self) -> str | None:
        """`excludes_nothing` as one note for a person (`kb query`); None when there is none."""
        if not self.excludes_nothing:
            return None
        one = len(self.excludes_nothing) == 1
        return (f"Note: {', '.join(self.excludes_nothing)} exclude{'s' if one else ''} nothing "
                f"here (no document has {'that value' if one else 'those values'}).")

    def fractions_text(self) -> str | None:
        """`fractions_left_out` as one note for a person (`kb query`); None when none is."""
        if not self.fractions_left_out:
            return None
        return (f"Note: {_first_named(self.fractions_left_out)} left out of the percentage filter: a number of at most 1 "
                "may be a fraction (0.9 for 90%) or that many percent; write it with its %.")

    def degrees_text(self) -> str | None:
        """`degrees_as_celsius` as one note for a person (`kb query`); None when none is."""
        if not self.degrees_as_celsius:
            return None
        return (f"Note: {_first_named(self.degrees_as_celsius)} read as degrees Celsius: its field holds temperatures, so 度 "
                "alone is ℃ there; write ℃ for a temperature, and keep angles in a field of "
                "their own.")

    def unheld_text(self) -> str | None:
        """`unheld` in a sentence for a person (`kb query`); None when every value is held."""
        if not self.unheld:
            return None
        said = "; ".join(f + (f" (did you mean {' or '.join(m)}?)" if m else "")
                         for f, m in self.unheld)
        return f"No document has {said}: the filters apply their other values."


@dataclass(frozen=True)
class SearchResponse:
    """The answer to one question: results (empty when ``no_answer``), why there is no
    answer (``reason``), the filters applied and the release searched; ``condensed``: how
    much of a question longer than is searched was searched (None: all of it)."""

    query: str
    release: ReleaseInfo
    filters: SearchFilters
    no_answer: bool = True
    results: tuple[SearchResult, ...] = field(default=())
    reason: str | None = None
    took_ms: float | None = None
    condensed: dict[str, Any] | None = None
    # the codes and names (settings, keys) the question names that no document holds, as
    # the question writes them: said also when the rest of the question is answered
    not_in_knowledge: tuple[str, ...] = ()
    # reason FILTERED_OUT: the filters (as `where_text` writes them) that each leave no
    # chunk, else all of them with `together` (they leave none only together)
    emptied_by: tuple[str, ...] = ()
    together: bool = False
    # reason FILTERED_OUT: filters documents do have that an emptying one may be a typo of
    # (``crop=玉米`` for crop=玉木: `kbtools.query.filters.meant_values`)
    meant: tuple[str, ...] = ()

    def reason_text(self) -> str | None:
        """`reason` in a sentence for a person (`kb query`): with the filters that leave
        nothing named, as the search page says it ("no document has crop=banana")."""
        if self.reason != FILTERED_OUT or not self.emptied_by:
            return self.reason
        both = " together" if self.together else ""
        meant = f" (did you mean {' or '.join(self.meant)}?)" if self.meant else ""
        return f"no document has {'; '.join(self.emptied_by)}{both}{meant}, so {FILTERED_OUT}"

    def filtered(self) -> bool:
        """Did the filters, not the knowledge, leave the question without an answer (no
        chunk passes them, or none they keep is relevant and the knowledge answers it)?"""
        return self.reason in (FILTERED_OUT, FILTERED_AWAY)

    def filters_text(self) -> str:
        """The filters as a person reads them: ``crop=小麦; verified=true``."""
        return "; ".join([*self.filters.where, *(["verified=true"]
                                                 if self.filters.verified_only else [])])

    def names_shown(self) -> tuple[tuple[str, ...], int]:
        """The first `NAMES_SHOWN` of `not_in_knowledge` and how many more there are: what
        the CLI, the web page and the JSON say (a pasted log names a file, a function and a
        variable on every line; the user needs the first few and a count, not the log back)."""
        names = self.not_in_knowledge
        return names[:NAMES_SHOWN], max(0, len(names) - NAMES_SHOWN)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of `kb query --json` (and of ``/api/search`` and MCP ``search``)."""
        out: dict[str, Any] = {"format": QUERY_FORMAT, "query": self.query,
                               "release": self.release.to_dict(), "no_answer": self.no_answer,
                               "filters": self.filters.to_dict(),
                               "results": [r.to_dict() for r in self.results]}
        names, more = self.names_shown()
        if names:
            out["not_in_knowledge"] = list(names)
        if more:
            out["not_in_knowledge_more"] = more
        if self.condensed is not None:
            out["condensed"] = dict(self.condensed)
        if self.reason is not None:
            out["reason"] = self.reason
        if self.emptied_by:
            out["reason_values"] = {"filters": list(self.emptied_by), "together": self.together}
            if self.meant:
                out["reason_values"]["did_you_mean"] = list(self.meant)
        if self.took_ms is not None:
            out["took_ms"] = self.took_ms
        return out


def _first_named(values: tuple[str, ...]) -> str:
    """The first `NAMES_SHOWN` of `values` joined, and how many more there are."""
    more = len(values) - NAMES_SHOWN
    return "; ".join(values[:NAMES_SHOWN]) + (f" and {more} more" if more > 0 else "")
