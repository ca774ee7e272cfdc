"""A decision table evaluated in the release a citation came from: MCP `evaluate_table`,
``/api/table/evaluate`` and ``kb table eval`` (with ``--commit`` or ``--release``) alike.

An agent that cited a table from a release (its ``source_commit``, its tag) and evaluates
it later, after a `kb sync`, would otherwise get the rules of another release. The release
is found as `read` finds it (`cited_read.asked_knowledge`): the release served now; an
earlier one the device still keeps (its table, with both releases named); otherwise the
served release's table at the citation's heading path, its name or its number, with
`release_gone` saying the release asked for is gone and what was evaluated instead. A
citation that places its table by lines alone cannot be placed in another release: refused
in one line saying what to send.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.agents.citation_text import said_dirty
from kbtools.agents.cited_read import (
    asked_knowledge,
    asked_release,
    kept_elsewhere,
    lines_note,
    served_name,
)
from kbtools.agents.moved import moved
from kbtools.agents.named import Named, TableArg, evaluate_named, named
from kbtools.agents.opened import OpenedReleases
from kbtools.agents.read import Knowledge
from kbtools.decision.matching import TableResult
from kbtools.errors import KbError, UsageError, line_span
from kbtools.index.reader import ReleaseInfo


@dataclass(frozen=True)
class CitedTable:
    """A table evaluated (`result`) in `release` (None: a repository's files); `served`, the
    release served now when `release` is an earlier one; `gone`, one line, when the release
    asked for is no longer kept and `result` is the served release's; `note`, one line, when
    the citation's lines may be of another build of its commit (`lines_note`)."""

    result: TableResult
    release: ReleaseInfo | None
    served: ReleaseInfo | None = None
    gone: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The evaluation's JSON with the release it was evaluated in (every surface)."""
        out = self.result.to_dict()
        out["release"] = self.release.to_dict() if self.release is not None else None
        if self.served is not None:
            out["served_release"] = self.served.to_dict()
        if self.gone is not None:
            out["release_gone"] = self.gone
        if self.note is not None:
            out["release_note"] = self.note
        return out


def evaluate_cited(kn: Knowledge, doc: str, inputs: Mapping[str, str],
                   table: TableArg = None, *, commit: Any = None, release: Any = None,
                   device: Path | None = None, policy: str | None = None,
                   option: str = "table", opened: OpenedReleases | None = None) -> CitedTable:
    """Evaluate the decision table `doc` (a path, a citation or a link, with or without
    the release after it) and `table` name, in the release `commit`/`release` or the
    citation names (see the module). `device` is the device `kn` is served from, when
    known; `option` is what the surface calls its table argument; `opened`, a server's
    earlier releases kept open."""
    plain, commit, tag = asked_release(doc, commit, release)
    name = named(plain)
    with asked_knowledge(kn, commit, tag, device, opened) as at:
        if at.gone is None:
            try:
                return CitedTable(_evaluate(at.kn, name, inputs, table, policy, option),
                                  at.release, at.served,
                                  note=lines_note(at.release, commit, tag, said_dirty(doc)))
            except KbError as exc:  # a document renamed since: where its section is now
                exc = moved(exc, at.kn, name.heading, served_name(at.kn))
                raise kept_elsewhere(exc, at, name.doc, device) from None
    return _evaluate_now(kn, name, inputs, table, policy, option, at.gone)


def _evaluate(kn: Knowledge, name: Named, inputs: Mapping[str, str], table: TableArg,
              policy: str | None, option: str) -> TableResult:
    src = kn.read(kn.resolve(name.doc, section_arg=option))
    return evaluate_named(src, name, inputs, table, policy=policy,
                          synonyms=kn.table_synonyms, option=option)


def _evaluate_now(kn: Knowledge, name: Named, inputs: Mapping[str, str], table: TableArg,
                  policy: str | None, option: str, gone: str) -> CitedTable:
    """The served release's table that `name` and `table` name, said to be no evaluation of
    the release asked for (`gone`)."""
    here = served_name(kn)
    unnamed = table is None or isinstance(table, str) and not table.strip()
    if name.lines is not None and not name.heading and unnamed:
        raise UsageError(f"{gone}: {line_span(*name.lines, '-')} of it may hold another "
                         f"table in {here}; give the citation's heading path (its § part) or "
                         "the table's name or number, or search again")
    try:
        result = _evaluate(kn, name, inputs, table, policy, option)
    except UsageError:
        raise
    except KbError as exc:
        exc = moved(exc, kn, name.heading, here)
        raise KbError(f"{gone}, and {here} has no such table: {exc.message}",
                      key="release_gone", values=exc.values) from None
    t = result.table
    where = f"at '{' > '.join(t.heading_path)}'" if t.heading_path else "at the top"
    now = kn.idx.release if kn.idx is not None else None
    return CitedTable(result, now, gone=(
        f"{gone}; this is the answer of {here}'s table {result.table_index} {where} ("
        f"{line_span(t.line_start, t.line_end, '-')}): its rules may differ from the earlier "
        "release's; do not cite it as that release's answer"))
