"""What `kb watch` watches beyond its folders: where the symlinks in them lead.

A document or picture in knowledge/ (or assets/, schemas/) may be a symlink to a file
elsewhere in the repository (`knowledge/pump.md -> ../notes/pump.md`; `kbtools.linkscope`
keeps it inside the root; a symlinked folder is a `kb check` error, never read). A build
reads the target; the watcher's folders never see it change (inotify and its peers do not
follow links). `LinkTargets.find` lists the real files the links lead to, outside the
watched folders; the watcher watches their folders too and takes a change of one as a change
of the knowledge. So are the files a document shows from elsewhere in the repository
(`![叶片](../../pics/leaf.png)`: the build ships them in data/source/, its manifest lists
them), and so are the files outside them a document names that do not exist yet (`missing`:
`![叶片](../../pics/leaf.png)` saved before the picture is copied there, the build failing
on `path-missing`): the nearest folder of each that exists is watched, the picture's
creation (or its folder's) rebuilds. The list is made again after each build, and when a
watched folder comes or goes or a change names a symlink (one made, moved or removed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LinkTargets:
    """The symlinks found (`links`), the real files they lead to (`files`), the files
    outside the watched folders the last build shipped (`shown`: pictures elsewhere) and
    those its documents name that are not there (`missing`)."""

    links: frozenset[Path] = frozenset()
    files: frozenset[Path] = frozenset()
    shown: frozenset[Path] = frozenset()
    missing: frozenset[Path] = frozenset()

    @classmethod
    def find(cls, root: Path, watched: list[Path], manifest: Path | None = None,
             missing: Iterable[str] = ()) -> LinkTargets:
        """The links below the `watched` folders (hidden entries left out, as the build
        leaves them) leading to something inside `root` and outside those folders, and the
        files of `root` outside them that the build at `manifest` shipped in data/source/
        and those of the root-relative `missing` outside them."""
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
        return cls(frozenset(links), frozenset(files)).shipped(root, watched, manifest,
                                                                 missing)

    def shipped(self, root: Path, watched: list[Path], manifest: Path | None,
                missing: Iterable[str] = ()) -> LinkTargets:
        """These links with `shown` made again from the build at `manifest` (after each
        build: no walk of the folders) and `missing` from the root-relative paths the
        build's documents name that no file is."""
        real_root = root.resolve()
        real_watched = [f.resolve() for f in watched]
        absent = {real_root / rel for rel in missing}
        return LinkTargets(self.links, self.files,
                           frozenset(_shipped(real_root, watched, manifest)),
                           frozenset(p for p in absent if p.is_relative_to(real_root)
                                     and not any(p.is_relative_to(w) for w in real_watched)))

    def watch_folders(self) -> dict[Path, bool]:
        """The folders to watch (not recursively): each linked or shown file's, and the
        nearest existing folder of each missing one's."""
        found = {file.parent: False for file in sorted(self.files | self.shown)}
        for file in sorted(self.missing):
            folder = file.parent
            while not folder.is_dir() and folder != folder.parent:
                folder = folder.parent
            found[folder] = False
        return found

    def holds(self, path: Path) -> bool:
        """Whether a change of `path` is a change of a linked, shown or missing file."""
        return path in self.files or path in self.shown or path in self.missing

    def awaits(self, path: Path) -> bool:
        """Whether `path` is a folder a missing file would be in (made: watch it)."""
        return any(file.is_relative_to(path) and file != path for file in self.missing)

    def names_link(self, path: Path) -> bool:
        """Whether `path` is, or was when the links were found, a symlink."""
        return path in self.links or path.is_symlink()


_SOURCE = "data/source/"


def _shipped(root: Path, watched: list[Path], manifest: Path | None) -> list[Path]:
    """The files of `root` outside the `watched` folders that the build whose `manifest`
    this is copied into data/source/ (none when there is no readable manifest)."""
    try:
        artifacts = json.loads(manifest.read_text(encoding="utf-8"))["artifacts"] \
            if manifest is not None else {}
    except (OSError, ValueError, KeyError, TypeError):
        return []
    rels = [folder.resolve().relative_to(root).as_posix() for folder in watched
            if folder.resolve().is_relative_to(root)]
    inside = tuple(_SOURCE if rel == "." else f"{_SOURCE}{rel}/" for rel in rels)
    out = []
    for name in artifacts if isinstance(artifacts, dict) else ():
        if isinstance(name, str) and name.startswith(_SOURCE) and not name.startswith(inside):
            path = root / name.removeprefix(_SOURCE)
            if path.is_file():
                out.append(path)
    return out
