"""Documents changed lately, read from Git: `recent_doc_changes`, one `RecentChange` per
document (its newest change), for `kb recent` and the MCP `recent` tool
(`kbtools.review.history.recent_changes` describes them in review terms).

No review vocabulary here either: the states before and after each change are
`kbtools.provenance` `DocState`s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import git

from kbtools.config import Config
from kbtools.gitobjects import CommitInfo, commit_log, unquote_path
from kbtools.pathspecs import literal
from kbtools.provenance import DocChange, git_prefix, plain_paths, shallow_boundary, states_at

RECENT_DEFAULT_N = 20  # documents listed by `recent_doc_changes` when no limit is given


def changed_since(days: int, now: datetime | None = None) -> datetime:
    """The earliest author date `days` keeps: `days` × 24 hours before `now`; 0 means today,
    from midnight of this machine's local day (an agent or an operator asking for the last
    0 days asks what changed today: the instant `now` alone held nothing)."""
    now = now or datetime.now(UTC)
    if days == 0:
        return now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    return now - timedelta(days=days)


@dataclass(frozen=True)
class RecentChange:
    """The newest change to one document in `recent_doc_changes`."""

    doc: str  # relative to the kb root
    kind: str  # added | modified | deleted | renamed | unknown (a shallow clone's boundary)
    change: DocChange


def recent_doc_changes(repo: git.Repo, cfg: Config, days: int | None = None,
                       n: int | None = None) -> list[RecentChange]:
    """Documents of the knowledge folder added or changed recently, newest first, one
    entry per document (its newest change; merges left out).

    `days` limits by the author date of each document's newest change (as a device's
    `last_changed`; 0: today, `changed_since`), `n` the number of documents (`RECENT_DEFAULT_N` when
    neither is given).
    """
    if days is None and n is None:
        n = RECENT_DEFAULT_N
    prefix = git_prefix(repo, cfg.root)
    knowledge = prefix + cfg.data["paths"]["knowledge"].strip("/") + "/"
    args = ["-M", "--name-status", "--no-merges"]
    since = None
    if days is not None and days * 86400 < time.time():  # else everything (git would read
        # a date before 1970 as none at all). git's --since is by commit date: it only cuts
        # the walk short (a commit is made after it is authored); the author date decides
        since = changed_since(days)
        args.append(f"--since={since.isoformat()}")
    plain_paths(repo)
    try:
        records = commit_log(repo, *args, "HEAD", "--", literal(knowledge))
    except git.GitCommandError:
        return []
    seen: set[str] = set()
    found: list[tuple[CommitInfo, str, str, str]] = []  # commit, status, old, new
    for info, lines in records:
        for status_line in lines:
            parts = [unquote_path(p) for p in status_line.split("\t")]
            status, old, new = parts[0], parts[1], parts[-1]
            if not new.endswith(".md") or new in seen:
                continue
            seen.add(new)
            # the newest change decides, by the date it shows (as a device's last_changed):
            # one committed lately but authored before (--date, an imported history) is not
            if since is None or info.authored_at >= since:
                found.append((info, status, old, new))
        if n is not None and len(found) >= n:
            found = found[:n]
            break
    # a shallow clone's boundary commit shows every file as added: what it did is unknown
    boundary = shallow_boundary(repo)
    kinds = ["unknown" if status[0] == "A" and info.sha in boundary
             else {"A": "added", "D": "deleted", "R": "renamed"}.get(status[0], "modified")
             for info, status, _, _ in found]
    wanted = []
    for (info, _, old, new), kind in zip(found, kinds, strict=True):
        if info.parents and kind not in ("added", "unknown"):
            wanted.append((info.parents[0], old))
        if kind != "deleted":
            wanted.append((info.sha, new))
    states = states_at(repo, wanted)
    result = []
    for (info, _, old, new), kind in zip(found, kinds, strict=True):
        before = (states[info.parents[0], old]
                  if info.parents and kind not in ("added", "unknown") else None)
        after = None if kind == "deleted" else states[info.sha, new]
        doc = new[len(prefix):] if new.startswith(prefix) else new
        result.append(RecentChange(doc, kind, DocChange(info, new, before, after,
                                                        cut=kind == "unknown")))
    return result
