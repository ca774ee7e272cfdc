"""Git submodules below a knowledge base: the folders `.gitmodules` names, and what a
missing file's finding adds when its submodule has not been checked out."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from kbtools.check.fscache import FsCache, git_cwd
from kbtools.provenance import work_tree_top


def unchecked_module(fs: FsCache, joined: str) -> str:
    """What to add to the finding of a missing file below a git submodule (`.gitmodules`
    names it) that has not been checked out (a clone made without `--recurse-submodules`):
    its folder is there, empty. "" otherwise. The command names the folder from where kb
    runs (pre-commit runs it at the top of a monorepo, above the knowledge base), so in a
    repository with submodules a missing file's finding is not kept in the results cache
    (nor is what `.gitmodules` says, a file the cache's signature of the tree leaves out; a
    submodule added later adds its folder, which that signature sees)."""
    root = fs.root
    if fs.submodules is None:
        fs.submodules = tuple(submodule_paths(root))
    if fs.submodules and fs.touched is not None:
        fs.touched.append(".gitmodules")
    for path in fs.submodules:
        if joined.startswith(path + "/"):
            folder = root / path
            if folder.is_dir() and not any(folder.iterdir()):
                here = git_cwd(work_tree_top(root), Path.cwd())
                if here is None:  # kb runs outside the work tree
                    where = f"-C {shlex.quote(str(root))} "
                    named = path
                else:
                    where = ""
                    named = Path(os.path.relpath(os.path.realpath(folder), here)).as_posix()
                return (f": {path} is a git submodule that is not checked out; run "
                        f"'git {where}submodule update --init {shlex.quote(named)}'")
    return ""


def submodule_paths(root: Path) -> list[str]:
    """The `path = …` of each submodule the `.gitmodules` of the Git work tree holding
    `root` lists, relative to `root`: in a monorepo whose knowledge base is a folder
    (`kb/kb.toml`), the file is at the top and says `path = kb/assets/lib`, which is
    `assets/lib` here; one outside `root` is left out. None when there is no such file or
    it cannot be read."""
    top = work_tree_top(root) or root
    try:
        prefix = Path(os.path.realpath(root)).relative_to(os.path.realpath(top)).as_posix()
        with open(top / ".gitmodules", encoding="utf-8", errors="replace") as f:
            text = f.read(1_000_000)
    except (OSError, ValueError):
        return []
    prefix = "" if prefix == "." else prefix + "/"
    out = []
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        path = value.strip().strip("/")
        if eq and key.strip() == "path" and path.startswith(prefix):
            out.append(path[len(prefix):])
    return out
