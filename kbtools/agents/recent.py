"""Documents changed recently: from Git history in a repository, from the index on a device.

In a knowledge repository `kbtools.review.history.recent_changes` reads the log (author,
summary of what changed). A device has no knowledge history, only an index release: there the document
records of the chunk store (last_commit / last_author / last_changed, stamped at build time)
are used instead, and each entry says so in ``source``. Where they came from, ``root``, is
shown as `shown_root` writes it, never as the device's absolute path.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.config import CONFIG_NAME, find_root
from kbtools.errors import UsageError
from kbtools.index.reader import KbIndex
from kbtools.provenance import open_repo
from kbtools.review.history import recent_changes
from kbtools.review.recent import changed_since
from kbtools.ship.checkout import open_index

DEFAULT_N = 20


MAX_DAYS = 100 * 366


def _when(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def from_doc_records(docs: list[dict[str, Any]], *, days: int | None = None,
                     n: int | None = None, now: datetime | None = None) -> list[dict[str, Any]]:
    """Recent changes from index document records, newest first (pure)."""
    if days is None and n is None:
        n = DEFAULT_N
    now = now or datetime.now(UTC)
    since = changed_since(days, now) if days is not None else None
    dated = [(w, d) for d in docs if (w := _when(d.get("last_changed"))) is not None]
    dated.sort(key=lambda t: (t[0], t[1]["doc"]), reverse=True)
    out = []
    for when, d in dated:
        if since is not None and when < since:
            break
        meta = d.get("metadata") or {}
        commit = d.get("last_commit") or ""
        out.append({"doc": d["doc"], "change": "changed", "commit": commit,
                    "author": d.get("last_author") or "", "author_email": "",
                    "date": when.isoformat(), "message": "",
                    "summary": f"last changed in commit {commit[:10]}" if commit else "",
                    "title": d.get("title") or meta.get("title"),
                    "verified": bool(d.get("verified")), "source": "index"})
        if n is not None and len(out) >= n:
            break
    return out


def shown_root(path: Path, repo: Path | None) -> str:
    """Where changes came from as an agent may be shown it (`recent`'s ``root``): relative to
    the knowledge repository `repo` when it lies inside it ("." for the repository itself,
    "dist" for its build), else the directory's own name (a device's release is named by its
    tag, "kb-r3"): the absolute path told an agent the device's layout (its user's home)."""
    here = path.resolve()
    if repo is not None and here.is_relative_to(base := repo.resolve()):
        return here.relative_to(base).as_posix()
    return here.name or "."


def recent(root: Path | None = None, *, index: Path | None = None, idx: KbIndex | None = None,
           days: int | None = None, n: int | None = None) -> dict[str, Any]:
    """``{"source": "git"|"index", "root": …, "release": …, "changes": [...]}``, newest
    first; ``root`` is where they came from, as `shown_root` shows it.

    Uses Git when `root` (or the current directory) is a knowledge repository and no index
    is given; otherwise the index (``--index``, KB_INDEX, ./dist or the device directory).
    """
    if days is not None and days < 0:
        raise UsageError("--days must be 0 or more")
    if days is not None:
        days = min(days, MAX_DAYS)  # "the last 10**30 days" is everything, not an overflow
    if n is not None and n < 1:
        raise UsageError("-n must be 1 or more")
    repo_root = find_root(root)
    in_repo = (repo_root / CONFIG_NAME).is_file()
    if idx is None and index is None:
        repo = open_repo(repo_root) if in_repo else None
        if repo is not None:
            repo.close()
            changes = recent_changes(repo_root, days=days, n=n)
            for c in changes:
                c["source"] = "git"
            return {"source": "git", "root": shown_root(repo_root, repo_root), "release": None,
                    "changes": changes}
    if idx is None:
        idx = open_index(index)
    return {"source": "index", "root": shown_root(Path(idx.root), repo_root if in_repo else None),
            "release": idx.release.to_dict(),
            "changes": from_doc_records(idx.docs(), days=days, n=n)}
