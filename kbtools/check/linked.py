"""Symlinked folders holding Markdown under the folders `kb check` walks.

`corpus.find_markdown` does not follow a symlink to a folder (no loops, nothing read from
outside the repository), and neither does the build: the documents of a folder an author
linked into `knowledge/` (`ln -s ~/notes knowledge/notes`, or a folder elsewhere in the
repository) were neither checked nor released, and `kb check` said nothing of them. Each
such link is now one `path-symlink-folder` error at the link, naming where it leads and one
Markdown file found there. A link to a folder of images (`knowledge/shots ->
../assets/shots`) and one leading inside the folder being checked (its documents are
checked where they are) are no finding.

The folder a link leads to is searched for a Markdown file breadth first, without following
further links or entering hidden folders, and at most `SCAN_LIMIT` entries deep into it: a
link to a huge tree (`/`, a home folder) costs a bounded time, and without a Markdown file
found within the bound it is no finding.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from kbtools.corpus import MARKDOWN_SUFFIX, OTHER_MARKDOWN_SUFFIXES, is_inside

CODE = "path-symlink-folder"
SCAN_LIMIT = 5000  # directory entries looked at in a linked folder before giving up


def linked_folders(folders: list[Path]) -> Iterator[Path]:
    """Every symlink to a folder below `folders` (not below a hidden folder), sorted
    within each folder."""
    for top in folders:
        for here, dirs, _ in os.walk(top, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in dirs:
                path = Path(here) / name
                if path.is_symlink():
                    yield path


def markdown_in(folder: str, limit: int = SCAN_LIMIT) -> str | None:
    """The path (relative to `folder`) of a Markdown file in `folder`, the nearest first;
    None when none is found within `limit` entries."""
    todo: deque[str] = deque([""])
    seen = 0
    while todo and seen < limit:
        rel = todo.popleft()
        try:
            with os.scandir(os.path.join(folder, rel)) as entries:
                found = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in found:
            seen += 1
            name = os.path.join(rel, entry.name)
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith("."):
                        todo.append(name)
                elif os.path.splitext(entry.name)[1].lower() in (
                        MARKDOWN_SUFFIX, *OTHER_MARKDOWN_SUFFIXES):
                    return Path(name).as_posix()
            except OSError:
                continue
    return None


def folder_problem(link: Path, root: Path, checked: list[Path]) -> str | None:
    """The message for the symlinked folder `link` (None: no finding): where it leads, a
    Markdown file found there, and what to do. `checked`: the folders being checked (a link
    into one of them loses nothing)."""
    real = os.path.realpath(link)
    if not os.path.isdir(real) or any(is_inside(real, os.path.realpath(c)) for c in checked):
        return None
    found = markdown_in(real)
    if found is None:
        return None
    where = "" if is_inside(real, os.path.realpath(root)) else ", outside the repository"
    return (f"a symlink to a folder ({os.readlink(link)!r}{where}) holding Markdown "
            f"({found!r}): kb follows no symlinked folder, so its documents are neither checked "
            "nor released: put the folder itself here in place of the link (move it, then "
            "git add it)")
