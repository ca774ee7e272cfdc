"""Images a release ships: the raster pictures its documents link to, copied beside them.

A document ``knowledge/crops/x.md`` linking ``../../assets/images/y.png`` ships as
``data/source/knowledge/crops/x.md``, and the picture as ``data/source/assets/images/y.png``,
so the link written in the Markdown resolves inside the release exactly as it does in the
repository, and a device (`kb serve`) shows the photo without the knowledge repository.

Only what is safe to show is copied: relative links without a scheme, resolving inside the
repository root (symlinks included), regular files of a raster type (`IMAGE_TYPES`; an
author's SVG is not shipped — formulas are the only SVGs, and they are sanitised), at most
`MAX_IMAGE_BYTES` each. Anything else is left out silently: `kb check` reports missing and
unsafe links, the build does not fail over a picture. A Git LFS pointer file (a clone made
without git-lfs holds these in place of the pictures) is no picture either: it is left out
and named (`ShippedImages.lfs_pointers`), so the build can say what to do.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from kbtools.corpus import read_source
from kbtools.errors import SourceError
from kbtools.fsutil import atomic_write_bytes

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
# how every Git LFS pointer file begins (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"


@dataclass
class ShippedImages:
    copied: list[str] = field(default_factory=list)  # repository-relative paths, sorted
    lfs_pointers: list[str] = field(default_factory=list)  # left out: pointers, not pictures


def image_path(doc: str, src: str) -> str | None:
    """The repository-relative posix path an image link of `doc` names, or None when the link
    is not a relative link to a raster image inside the repository."""
    src = src.strip()
    parts = urlsplit(src)
    if not src or parts.scheme or parts.netloc or src.startswith(("/", "\\")) or "\\" in src:
        return None
    path = unquote(parts.path)
    if not path or "\x00" in path:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc), path))
    if joined.startswith("../") or joined in ("..", ".") or joined.startswith("/"):
        return None
    if posixpath.splitext(joined)[1].lower() not in IMAGE_TYPES:
        return None
    return joined


def ship_images(links: Iterable[tuple[str, str]], root: Path, source_dir: Path) -> ShippedImages:
    """Copy each image linked as (document path, link) from `root` into `source_dir` under
    its repository-relative path; returns the paths copied and the Git LFS pointer files
    left out."""
    wanted = sorted({p for doc, src in links if (p := image_path(doc, src)) is not None})
    out = ShippedImages()
    for rel in wanted:
        try:
            data = read_source(root / rel, root, MAX_IMAGE_BYTES)
        except SourceError:
            continue
        if len(data) > MAX_IMAGE_BYTES:
            continue
        if data.startswith(LFS_POINTER):
            out.lfs_pointers.append(rel)
            continue
        atomic_write_bytes(source_dir / rel, data)
        out.copied.append(rel)
    return out
