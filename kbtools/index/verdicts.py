"""Whether a chunk, or a range of a document's lines, is verified: a chunk's
`verification` from its document's front matter and the build's review facts
(`chunk_verification`), a range judged, and dated, by the finest chunk over each of its
lines (`span_verdict`, `finest`, with a chunk of several sections split into them by `by_section`), and
the newest change among chunk rows (`changed_rank`). Pure functions over chunk records, for
the build, `Store` and the citations alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

NOT_VERIFIED = "the document is not verified (verified is not true in its front matter)"
NOT_CHECKED = ("not checked against the review history (release built by an older kbtools); "
               "rebuild it")


def chunk_verification(meta: dict[str, Any], chunk: dict[str, Any]) -> dict[str, Any]:
    """The `verification` of one chunk record of a document with front matter `meta`:
    {"verified", "status" (verified|lapsed|unchecked|unverified), "reason", "review"}."""
    if meta.get("verified") is not True:
        return {"verified": False, "status": "unverified", "reason": NOT_VERIFIED,
                "review": None}
    v = chunk.get("verification")
    if not isinstance(v, dict):
        return {"verified": False, "status": "unchecked", "reason": NOT_CHECKED, "review": None}
    ok = v.get("verified") is True
    return {"verified": ok, "status": str(v.get("status") or ("verified" if ok else "lapsed")),
            "reason": None if ok else str(v.get("reason") or "changed after review"),
            "review": v.get("review") if isinstance(v.get("review"), dict) else None}


LAST_LINE = 2**62  # past any document's last line


def span_verdict(rows: Iterable[dict[str, Any]], line_start: int, line_end: int) -> str | None:
    """Why lines line_start..line_end are not verified, judged by the chunk records `rows`
    of their document (each with ``line_start``, ``line_end``, ``verified`` and
    ``verification``); None when they are.

    Each line of the range is judged by the finest chunk covering it (`finest`): a
    verified list item inside a section that lapsed because another of its lines changed
    stays verified, as search serves it, while a range holding the changed line does not.
    The reason given is that of the first line, by line, whose chunk is not verified. A
    range no chunk covers (blank lines between sections) takes the document's verdict: the
    reason of its first unverified chunk, if any."""
    return next((str(r["verification"].get("reason") or "not verified")
                 for r in finest(rows, line_start, line_end) if not r["verified"]), None)


def finest(rows: Iterable[dict[str, Any]], line_start: int, line_end: int
           ) -> list[dict[str, Any]]:
    """The finest of chunk records `rows` over each line of line_start..line_end, by line
    (the shortest chunk covering it; of two as short, the unverified one): what says a
    line's verdict and last change, a table row's or list item's own rather than its
    section's; `rows` by their lines when none covers a line of the range."""
    rows = list(rows)
    over: dict[int, dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: (r["line_start"] - r["line_end"], not r["verified"])):
        for line in range(max(line_start, r["line_start"]), min(line_end, r["line_end"]) + 1):
            over[line] = r  # longest first: a shorter chunk over the line overwrites it
    return [over[line] for line in sorted(over)] or sorted(
        rows, key=lambda r: (r["line_start"], r["line_end"]))


def by_section(rows: list[dict[str, Any]], line_start: int, line_end: int
               ) -> list[dict[str, Any]]:
    """Chunk records `rows`, each holding several sections (``extra["sections"]``, with
    the facts of their own lines, `kbtools.build.verified.with_section_facts`) in place
    of those of its sections over lines line_start..line_end: a section's lines are not
    dated or lapsed by a sibling's edit."""
    out = []
    for r in rows:
        parts = [p for p in (r.get("extra") or {}).get("sections", ())
                 if p["line_start"] <= line_end and p["line_end"] >= line_start
                 and ("provenance" in p or "verification" in p)]
        for p in parts:
            v = p.get("verification") or r["verification"]
            out.append({**r, **p.get("provenance", {}), "line_start": p["line_start"],
                        "line_end": p["line_end"], "verification": v,
                        "verified": bool(v["verified"])})
        if not parts:
            out.append(r)
    return out


def changed_rank(row: Mapping[str, Any]) -> tuple[int, float]:
    """A chunk row's last change, to pick the newest: uncommitted lines, then by the author
    date as an instant (None, unknown: oldest)."""
    if row.get("last_commit") == "uncommitted":
        return (2, 0.0)
    try:
        return (1, datetime.fromisoformat(str(row.get("last_changed"))).timestamp())
    except ValueError:
        return (0, 0.0)
