"""Where a path of a knowledge repository really leads: inside it, and not by a symlink into
one of its hidden entries.

A file of the repository is read (a document, a picture or PDF a document links to) only
when its real path (symlinks resolved) lies inside the repository root (`is_inside`). Inside
is not enough for a symlink: the repository's folder also holds what is no knowledge and
never goes into a release — the git directory (`.git/config`, where a CI checkout keeps its
token as an `http.extraheader`), an ignored `.env`, a `.venv`. The walk for documents skips
every hidden entry (a name beginning with "."), so a committed link
(`knowledge/x.md -> ../.git/config`) may not lead there either: `hidden_target` names the
hidden entry a link leads into, and the readers refuse it as a link leading out
(`path-symlink-escape`). A file named by its own hidden path, with no link on the way
(`kb check .github/notes.md`), is not refused here.

Pure path arithmetic over real paths (no file system access): callers resolve the paths.
"""

from __future__ import annotations

import os


def is_inside(real: str, real_root: str) -> bool:
    """Whether the real path `real` is `real_root` or lies below it (both already resolved)."""
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def hidden_target(named: str, real: str, real_root: str) -> str | None:
    """The repository-relative path ('/'-separated) of the hidden entry that symlinks lead
    `named` into, or None when they do not.

    `named` is the path as named, relative to the root; `real` its real path and
    `real_root` the root's. A hidden entry is a path segment beginning with "." (`.git`,
    `.env`, `.venv`) in `real` below the root, past the folders it shares with `named`: a
    link from one file of a hidden folder the name is in already to another
    (`.kb/knowledge/a.md -> b.md`) is not one. None when `real` lies outside the root
    (`is_inside` decides that), leads into no hidden entry, or is `named` itself (no link
    on the way)."""
    if real == real_root or not is_inside(real, real_root):
        return None
    parts = os.path.relpath(real, real_root).split(os.sep)
    said = os.path.normpath(named).split(os.sep)
    common = 0
    while common < min(len(parts), len(said)) - 1 and parts[common] == said[common]:
        common += 1
    if parts == said or not any(part.startswith(".") for part in parts[common:]):
        return None
    return "/".join(parts)


def hidden_where(target: str) -> str:
    """Where a link leading into the hidden entry `target` leads, as a finding says it
    ("a symlink leading …")."""
    top = target.split("/", 1)[0]
    return (f"into {target}, a hidden entry of the repository ({top}: no knowledge, never "
            "released)")
