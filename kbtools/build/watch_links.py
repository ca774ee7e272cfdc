"""What `kb watch` watches beyond its folders: where the symlinks in them lead.

A document or picture in knowledge/ (or assets/, schemas/) may be a symlink to a file
elsewhere in the repository (`knowledge/pump.md -> ../notes/pump.md`; `kbtools.linkscope`
keeps it inside the root; a symlinked folder is a `kb check` error, never read). A build
reads the target; the watcher's folders never see it change (inotify and its peers do not
follow links). `LinkTargets.find` lists the real files the links lead to, outside the
watched folders; the watcher watches their folders too and takes a change of one as a change
of the knowledge. The list is made again when a watched folder comes or goes, or a change
names a symlink (one made, moved or removed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LinkTargets:
    """The symlinks found (`links`) and the real files they lead to (`files`)."""

    links: frozenset[Path] = frozenset()
    files: frozenset[Path] = frozenset()

    @classmethod
    def find(cls, root: Path, watched: Iterable[Path]) -> LinkTargets:
        """The links below the `watched` folders (hidden entries left out, as the build
        leaves them) leading to something inside `root` and outside those folders."""
        real_root = root.resolve()
        folders = [f for f in watched if f.is_dir()]
        real_watched = [f.resolve() for f in folders]
        links: set[Path] = set()
        files: set[Path] = set()
        for folder in folders:
            for dirpath, dirnames, filenames in os.walk(folder):  # links not followed
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for name in [*dirnames, *filenames]:
                    path = Path(dirpath, name)
                    if name.startswith(".") or not path.is_symlink():
                        continue
                    links.add(path)
                    try:
                        real = path.resolve(strict=True)
                    except (OSError, RuntimeError):
                        continue  # dangling or a loop: nothing to watch (the check says so)
                    if not real.is_relative_to(real_root) or any(
                            real.is_relative_to(w) for w in real_watched):
                        continue
                    if real.is_file():
                        files.add(real)
        return cls(frozenset(links), frozenset(files))

    def watch_folders(self) -> dict[Path, bool]:
        """The folders to watch (not recursively): each linked file's."""
        return {file.parent: False for file in sorted(self.files)}

    def holds(self, path: Path) -> bool:
        """Whether a change of `path` is a change of a linked file."""
        return path in self.files

    def names_link(self, path: Path) -> bool:
        """Whether `path` is, or was when the links were found, a symlink."""
        return path in self.links or path.is_symlink()
