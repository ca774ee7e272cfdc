"""What `kb check` says of the files documents show as images or link: the release leaves
some out.

The build ships a linked picture only when devices can show it (`kbtools.render.images`:
`left_out` gives the reason for one that is not). `kb check` gives the same reason at each
image link, before the commit, so a photo saved as HEIC, a 30 MB scan, an SVG, a Git LFS
pointer (a clone without git-lfs) or an empty file is found where it is written rather than
on a device.

Each document's existing image targets are facts its (cached) check keeps
(`DocResult.images`); the files themselves are looked at on every run (their size and first
bytes: a picture replaced by its LFS pointer changes no document), once per file.

Files a document links that are neither documents nor pictures (`DocResult.files`) ship only
as PDFs (`kbtools.render.images.file_left_out`): a link to a spare-parts ``.xlsx``, a
``.dwg`` drawing or a video gets a warning that devices will not have the file, as does a
PDF over the size limit, a Git LFS pointer or a file named ``.pdf`` that is no PDF.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from kbtools.findings import Finding, finding
from kbtools.render.images import Dimensions, Unshipped, file_left_out, left_out, peek

CODES = {
    "image-lfs-pointer": "an image file that is a Git LFS pointer, not the picture (a clone "
                         "without git-lfs): not shipped (warning)",
    "image-too-large": "an image over the size a release ships (20 MiB, 100 megapixels): not "
                       "shipped (warning)",
    "image-format": "an image of a format devices do not show or a release does not ship "
                    "(HEIC, TIFF, SVG, PDF ...): not shipped (warning)",
    "image-not-picture": "an image file that is empty or whose bytes are no PNG, JPEG, GIF, "
                         "WebP or AVIF picture: not shipped (warning)",
    "file-not-shipped": "a linked file a release does not ship (only PDFs of up to 50 MiB "
                        "and pictures): devices will not have it (warning)",
}

ImageLink = tuple[int, int, str]  # line, column, the root-relative path of the file shown


def image_findings(links: Iterable[tuple[str, Iterable[ImageLink]]], root: Path,
                   level: Callable[[str, str], str],
                   files: Iterable[tuple[str, Iterable[ImageLink]]] = ()) -> list[Finding]:
    """A warning at each image link (document path, its image links), and at each link to
    another file (`files`, likewise), whose file the release would leave out; `level` maps a
    code and its default level to the level reported."""
    heads: dict[str, tuple[int, bytes, Dimensions] | None] = {}
    real_dirs: dict[str, str] = {}  # each folder resolved once in this pass
    out = []
    for why_of, uses in ((left_out, links), (file_left_out, files)):
        for doc, refs in uses:
            for line, col, rel in refs:
                if rel not in heads:
                    heads[rel] = peek(root, rel, real_dirs)
                found = heads[rel]
                why: Unshipped | None = why_of(rel, *found) if found is not None else None
                if why is not None:
                    out.append(finding(doc, line, col, level(why.code, "warning"), why.code,
                                       why.message))
    return out
