"""Files Git ignores in the work tree holding a knowledge repository: no part of it.

A build reads only what the repository holds. A file `.gitignore` (or ``.git/info/exclude``,
``core.excludesFile``) leaves out — ``secrets.txt``, ``config/local.yaml``, ``id_rsa``, an
ignored ``private/`` folder — is in no clone of the commit, however it is reached: found by
the walk for documents, named by a Markdown link or picture, or the target of a committed
symlink (``knowledge/notes.md -> ../private/notes.md``). `kb check` and `kb build` never
read one: the walk leaves ignored documents out as it leaves out hidden ones, a link to one
is `path-missing` (not in the repository), and a symlink leading into one is
`path-symlink-escape` like one leading into ``.git``. An untracked file Git does not ignore
is an author's work in progress: read, and the build says it is dirty
(`kbtools.build.identity`).

What Git ignores is listed once per run (`forget` at the start of each `kb check` and `kb
build`, `ignored_in` on first use and every `FRESH_SECONDS` after; forked workers inherit
the list), by one ``git ls-files
--others --ignored --exclude-standard --directory``: an ignored folder is one entry, its
files are not listed. No work tree (a corpus folder outside Git), git missing, or a root
that Git ignores as a whole (a corpus downloaded into an ignored folder is a folder of its
own, not the repository's): nothing is ignored.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from kbtools.linkscope import hidden_target, hidden_where, is_inside

# git's own environment for another repository (a hook of one, a shell set up for one) is
# not the work tree around the root; and what it lists must not depend on the locale
_DROPPED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_PREFIX")


@dataclass(frozen=True)
class Ignored:
    """What Git ignores in one work tree: `top` its real path, `entries` the ignored files
    and folders ('/'-separated, relative to `top`; a folder ends with '/')."""

    top: str
    entries: frozenset[str]

    def entry_of(self, real: str) -> str | None:
        """The ignored entry (relative to `top`) the real path `real` is or lies in, else
        None."""
        if not self.entries or real == self.top or not is_inside(real, self.top):
            return None
        parts = os.path.relpath(real, self.top).split(os.sep)
        for end in range(1, len(parts) + 1):
            head = "/".join(parts[:end])
            if head in self.entries:
                return head
            if head + "/" in self.entries:
                return head + "/"
        return None


# by the real path of a root: when it was listed (monotonic seconds) and what
_RUN: dict[str, tuple[float, Ignored | None]] = {}
FRESH_SECONDS = 10.0  # a listing older than this is made again (a long-lived process)


def forget() -> None:
    """Start a run: what Git ignores is listed afresh on next use (a long-lived `kb watch`
    sees a file ignored since, or no longer)."""
    _RUN.clear()


def ignored_in(real_root: str) -> Ignored | None:
    """What Git ignores around the root `real_root` (a real path), listed once per run, and
    again when the listing is older than `FRESH_SECONDS` (an MCP server or web app reading
    the repository for hours); None when nothing is (see the module doc)."""
    now = time.monotonic()
    held = _RUN.get(real_root)
    if held is None or now - held[0] > FRESH_SECONDS:
        held = _RUN[real_root] = (now, _listed(real_root))
    return held[1]


def ignored_target(real: str, real_root: str) -> str | None:
    """The path of `real` relative to the root ('/'-separated) when Git ignores it or a
    folder it lies in, else None. The root and `real` are real paths; a path outside the
    root is `is_inside`'s business, not this one's."""
    scope = ignored_in(real_root)
    if scope is None or not is_inside(real, real_root) or scope.entry_of(real) is None:
        return None
    return os.path.relpath(real, real_root).replace(os.sep, "/")


def ignored_entries(root: Path, leaving: Collection[Path] = ()) -> list[str]:
    """What Git ignores around `root`, sorted (relative to the work tree's top), for a
    cache of check results to be kept only while it stays the same: hidden entries (a
    link into one is refused whether ignored or not) and what lies in the folders
    `leaving` (the build output and the cache a check run writes itself) left out, as a
    results cache's tree signature leaves them out."""
    scope = ignored_in(os.path.realpath(root))
    if scope is None:
        return []
    skip = [os.path.realpath(p) for p in leaving]
    return sorted(e for e in scope.entries
                  if not any(part.startswith(".") for part in e.split("/"))
                  and not any(is_inside(os.path.join(scope.top, e.rstrip("/")), s) or
                              is_inside(s, os.path.join(scope.top, e.rstrip("/")))
                              for s in skip))


def ignored_where(target: str) -> str:
    """Where a link leading to the ignored `target` leads, as a finding says it."""
    return (f"to {target}, which Git ignores (.gitignore: no part of the repository, never "
            "read or released)")


def barred_link(named: str, real: str, real_root: str) -> str | None:
    """Where symlinks lead the root-relative `named` (real path `real`) that no file of
    the repository may be read from, as a finding says it, or None: into a hidden entry
    (`linkscope.hidden_target`) or onto what Git ignores (a file named by its own ignored
    path is left out by the walk, not refused here)."""
    hidden = hidden_target(named, real, real_root)
    if hidden is not None:
        return hidden_where(hidden)
    if os.path.normpath(named) == os.path.relpath(real, real_root):
        return None
    ignored = ignored_target(real, real_root)
    return None if ignored is None else ignored_where(ignored)


def _listed(real_root: str) -> Ignored | None:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED} | {"LC_ALL": "C"}
    try:
        top = subprocess.run(["git", "-C", real_root, "rev-parse", "--show-toplevel"],
                             capture_output=True, check=True, env=env,
                             stdin=subprocess.DEVNULL).stdout.rstrip(b"\n")
        out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--others", "--ignored",
                              "--exclude-standard", "--directory"], capture_output=True,
                             check=True, env=env, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    scope = Ignored(os.path.realpath(os.fsdecode(top)),
                    frozenset(os.fsdecode(p) for p in out.split(b"\0") if p))
    if scope.entry_of(real_root) is not None:  # the root itself is ignored
        return None
    return scope
