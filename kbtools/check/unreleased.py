"""Markdown `kb check` is shown that no release will hold, each one finding.

- A file named on the command line (`kb check notes/guide.md`) inside the knowledge
  repository but outside its knowledge folder: `path-outside-knowledge`, a warning (the
  file's own checks pass or fail as ever). Why: a new author who saved a document at the
  repository's top or in a folder of their own was told it passed, and it was never built;
  the pre-commit hook and CI check the knowledge folder only, so nothing else told them.

Symlinked folders holding Markdown under the folders `kb check` walks:

`docfiles.find_markdown` does not follow a symlink to a folder (no loops, nothing read from
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
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from kbtools.corpus import rel_path
from kbtools.docfiles import MARKDOWN_SUFFIX, OTHER_MARKDOWN_SUFFIXES
from kbtools.findings import Finding, finding
from kbtools.linkscope import is_inside

FOLDER_CODE = "path-symlink-folder"
OUTSIDE_CODE = "path-outside-knowledge"
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


def unreleased_findings(paths: list[Path], root: Path, knowledge: Path | None,
                        dist: Path | None, committed: Callable[[str], bool],
                        level: Callable[[str, str], str],
                        escaped: Collection[str] = ()) -> Iterable[Finding]:
    """The findings of `paths` (what `kb check` was given) that no release will hold: a
    `path-symlink-folder` error at each symlinked folder holding Markdown below a folder
    given, and a `path-outside-knowledge` warning for each Markdown file given that lies in
    the repository `root` but not in its `knowledge` folder (nor in the build's `dist`).
    `committed`: whether the commit checked holds a root-relative path; `level`: the
    context's level of a code; `escaped`: the root-relative paths of files given that were
    not read, being symlinks leading out of the repository or into a hidden entry
    (`path-symlink-escape` says so: `knowledge/ext/a.md` through a link `ext -> ~/notes` is
    that one finding, not also one of lying outside the knowledge folder)."""
    folders = [p for p in paths if p.is_dir()]
    for link in linked_folders(folders):
        rel = rel_path(link, root)
        if committed(rel) and (message := folder_problem(link, root, folders)):
            yield finding(rel, 1, 1, level(FOLDER_CODE, "error"), FOLDER_CODE, message)
    if knowledge is None or not knowledge.is_dir():
        return  # no knowledge folder: a folder of foreign Markdown checked as it is
    inside = [os.path.realpath(p) for p in (knowledge, dist) if p is not None]
    folder = rel_path(knowledge, root)
    for path in paths:
        rel = rel_path(path, root)
        if path.is_dir() or path.suffix != MARKDOWN_SUFFIX or rel.startswith("/") \
                or rel in escaped:
            continue
        named = os.path.abspath(path)  # its folder's real path (`..` and links resolved)
        real = os.path.join(os.path.realpath(os.path.dirname(named)), os.path.basename(named))
        if any(is_inside(real, p) for p in inside):
            continue
        through = linked_on_the_way(named, os.path.abspath(knowledge))
        if through is not None:  # `knowledge/notes/a.md`, `notes` a link to `../../notes`
            yield finding(rel, 1, 1, level(OUTSIDE_CODE, "warning"), OUTSIDE_CODE,
                          f"reached through the symlinked folder {rel_path(Path(through), root)} "
                          f"({os.readlink(through)!r}): checked, but kb follows no symlinked "
                          "folder, so kb build leaves it out of the release, and the "
                          "pre-commit hook and CI do not check it: put the folder itself "
                          "there in place of the link (move it, then git add it)")
            continue
        yield finding(rel, 1, 1, level(OUTSIDE_CODE, "warning"), OUTSIDE_CODE,
                      f"not in the knowledge folder ({folder}/, kb.toml [paths] knowledge): "
                      "checked, but kb build leaves it out of the release, and the pre-commit "
                      f"hook and CI do not check it: move it into {folder}/ to publish it")


def linked_on_the_way(named: str, top: str) -> str | None:
    """The first symlinked folder on the way from `top` down to the file `named` (both
    absolute, `..` resolved), when `named` lies below `top` as written; else None."""
    if not is_inside(named, top):
        return None
    here = top
    for part in Path(os.path.relpath(os.path.dirname(named), top)).parts:
        here = os.path.join(here, part)
        if os.path.islink(here):
            return here
    return None
