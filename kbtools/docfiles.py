"""Which files under a knowledge folder are documents: the walk (`find_markdown`), and the
names it tells apart (a document's exact `.md`; Markdown under another extension, reported;
an editor's or Git's copy of a document being saved or merged, and editors' backups, skipped;
a file-sync tool's conflicted copy, an error in `kb check`). Names and directory entries
only: nothing here reads a file (`kbtools.corpus.read_source` does).

Imports nothing of kbtools.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

MARKDOWN_SUFFIX = ".md"  # a document's extension, exactly (devices are case-sensitive)


# the other extensions editors give Markdown (Typora, Obsidian and others may write these)
OTHER_MARKDOWN_SUFFIXES = frozenset({".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn"})


def misnamed_markdown(path: Path) -> bool:
    """A Markdown file whose extension is not exactly `.md` (`Upper.MD`, `notes.markdown`):
    never indexed, and reported by `kb check` (`file-extension`), so it is not dropped
    silently."""
    suffix = path.suffix.lower()
    return path.suffix != MARKDOWN_SUFFIX and (suffix == MARKDOWN_SUFFIX
                                               or suffix in OTHER_MARKDOWN_SUFFIXES)


def misnamed_message(path: Path) -> str:
    """What `kb check` says of a `misnamed_markdown` file."""
    return (f"the extension {path.suffix!r} is not '.md': the document is not read or "
            f"indexed (rename it to {path.stem + MARKDOWN_SUFFIX!r})")


# a `.md` file an editor or Git writes beside a document while saving or merging it: Typora's
# `x~.md` (written before `x.md`, removed after), git mergetool's `x_LOCAL_1234.md`
_EDITOR_MARKDOWN = re.compile(r".*~\.md|.+_(?:BACKUP|BASE|LOCAL|REMOTE)_\d+\.md", re.IGNORECASE)
# a backup of a document an editor or git mergetool leaves: `x.md~`, `x.md.orig`, `x.md.bak`
_BACKUP_MARKDOWN = re.compile(r".+\.md(?:~|\.orig|\.bak)", re.IGNORECASE)
# the copy a file-sync tool keeps of a document two machines changed (real content): Syncthing's
# `x.sync-conflict-20261201-101010-ABCDEFG.md`, Dropbox's `x (Bob's conflicted copy
# 2026-12-01).md`, Nextcloud's and Obsidian Sync's `x (conflicted copy …).md`
_CONFLICTED = re.compile(r"(.+)\.sync-conflict-\d{8}-\d{6}(?:-\w+)?\.md"
                         r"|(.+) \([^()]*conflicted copy[^()]*(?:\(\d+\))?\)\.md", re.IGNORECASE)
TRASH = ".trash"  # Obsidian's trash folder (its deleted notes)


def editor_markdown(name: str) -> bool:
    """Whether a file named `name` is an editor's or Git's copy of a document being saved or
    merged (`_EDITOR_MARKDOWN`), never a document: not read, indexed or checked."""
    return _EDITOR_MARKDOWN.fullmatch(name) is not None


def conflicted_copy(name: str) -> str | None:
    """The document a file-sync tool's conflicted copy named `name` is a copy of, or None:
    never indexed, an error in `kb check` (it may hold a colleague's edit)."""
    match = _CONFLICTED.fullmatch(name)
    return None if match is None else (match[1] or match[2]) + MARKDOWN_SUFFIX


def find_markdown(paths: list[Path], leftovers: list[Path] | None = None) -> list[Path]:
    """Markdown files under the given files/dirs, sorted, skipping hidden dirs and editors'
    copies of a document being saved (`editor_markdown`).

    Symlinked directories are not followed (no loops). Every `*.md` entry that is not a
    directory is returned, FIFOs, devices and dangling symlinks included, so the checks
    report them (`read_source` never opens them); so is every `*.MD`, `*.markdown`, … entry
    (`misnamed_markdown`), for the checks to refuse; a path named explicitly is returned
    as is. `leftovers` gets the copies of documents skipped that an author should hear of:
    editors' backups (`x~.md`, `x.md~`, `x.md.orig`) and Obsidian's trash (`.trash/x.md`).
    """
    out: set[Path] = set()
    for p in paths:
        if p.is_dir():
            for f in p.rglob("*.[mM]*"):
                rel_parts = f.relative_to(p).parts
                hidden = [part for part in rel_parts[:-1] if part.startswith(".")]
                if f.suffix != MARKDOWN_SUFFIX and not misnamed_markdown(f):
                    if leftovers is not None and not hidden \
                            and _BACKUP_MARKDOWN.fullmatch(f.name) and not _is_real_dir(f):
                        leftovers.append(f)
                    continue
                if hidden or f.name.startswith((".", "_")) or editor_markdown(f.name):
                    if leftovers is not None and (hidden[:1] == [TRASH] if hidden else
                                                  editor_markdown(f.name)) \
                            and not _is_real_dir(f):
                        leftovers.append(f)
                    continue
                if not _is_real_dir(f):
                    out.add(f)
        else:
            out.add(p)
    if leftovers is not None:
        leftovers.sort()
    return sorted(out)


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
