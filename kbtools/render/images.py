"""Images a release ships: the raster pictures its documents link to, copied beside them.

A document ``knowledge/crops/x.md`` linking ``../../assets/images/y.png`` ships as
``data/source/knowledge/crops/x.md``, and the picture as ``data/source/assets/images/y.png``,
so the link written in the Markdown resolves inside the release exactly as it does in the
repository, and a device (`kb serve`) shows the photo without the knowledge repository.

Only what is safe to show is copied: relative links without a scheme, resolving inside the
repository root (symlinks included, none leading into `.git` or another hidden entry),
regular files of a type a browser shows (`IMAGE_TYPES`;
an author's SVG is not shipped — formulas are the only SVGs, and they are sanitised) whose
bytes are a picture of such a type (`picture_kind`), at most `MAX_IMAGE_BYTES` each and of at
most `MAX_IMAGE_PIXELS` (`pixels.picture_size`: a decompression bomb of a few kilobytes that
declares 100,000 × 100,000 pixels would take a device's browser down). What is
linked as an image but left out has a reason (`left_out`), the same for `kb check` (before
the commit) and the build (warnings at each link): a Git LFS pointer file (a clone made
without git-lfs holds these in place of the pictures), a picture over the size limit, a
format a device's browser does not show (HEIC from a phone, TIFF, SVG, a PDF), an empty file
or one whose bytes are no picture (an HTML page named `.png`). The build does not fail over a
picture.

Files a document links that are no pictures (`[手册](../../assets/manual.pdf)`): a PDF
(`FILE_TYPES`: a maintenance manual a technician opens on the tablet) ships the same way, when
its bytes are a PDF of at most `MAX_FILE_BYTES`; any other file (a spare-parts list as
``.xlsx``, a drawing as ``.dwg``, a video) is not shipped, and `file_left_out` says so, for
`kb check` and the build, at each link: devices will not have it.
"""

from __future__ import annotations

import math
import os
import posixpath
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from kbtools.corpus import read_source
from kbtools.errors import SourceError
from kbtools.fsutil import atomic_write_bytes
from kbtools.ignored import ignored_target
from kbtools.linkscope import hidden_target, is_inside
from kbtools.render.pixels import picture_size

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp", ".avif": "image/avif"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
# what a browser decodes a picture into is ~4 bytes a pixel: 100 MP is 400 MB of memory
MAX_IMAGE_PIXELS = 100_000_000
# files a document links, other than pictures, that a release ships, and their content types
FILE_TYPES = {".pdf": "application/pdf"}
SHIPPED_TYPES = {**IMAGE_TYPES, **FILE_TYPES}  # what `kb serve` serves from data/source/
# a scanned manual: larger than a photo, still well under what Git hosts accept per file
MAX_FILE_BYTES = 50 * 1024 * 1024
MARKDOWN = (".md", ".markdown")  # links to documents, not to files
# how every Git LFS pointer file begins (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"
HEAD_BYTES = len(LFS_POINTER)  # what `left_out` needs of a file's beginning
# ISO base media (HEIF) brands: AVIF is shown by browsers, the others (an iPhone's HEIC) not
_AVIF_BRANDS = (b"avif", b"avis")
_HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


@dataclass
class ShippedImages:
    copied: list[str] = field(default_factory=list)  # repository-relative paths, sorted
    left_out: dict[str, Unshipped] = field(default_factory=dict)  # by path: why not copied
    files_left_out: dict[str, Unshipped] = field(default_factory=dict)  # linked files: why not


@dataclass(frozen=True)
class Unshipped:
    """Why a file linked as an image is not in the release: a finding code and its words."""

    code: str  # image-lfs-pointer | image-too-large | image-format | image-not-picture |
    # file-not-shipped (a linked file)
    message: str


def picture_kind(head: bytes) -> str | None:
    """The shipped type ("png", "jpeg", "gif", "webp", "avif") whose signature `head` (a
    file's first bytes) begins with, or None: the bytes are no picture a browser shows."""
    if head.startswith(b"\x89PNG"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"GIF8"):
        return "gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp" and head[8:12] in _AVIF_BRANDS:
        return "avif"
    return None


Dimensions = tuple[int, int] | None  # (width, height) a picture declares, None: no size read


def left_out(rel: str, size: int, head: bytes, dims: Dimensions = None) -> Unshipped | None:
    """Why the file `rel` (repository-relative), linked as an image, of `size` bytes
    beginning with `head` (at least its first `HEAD_BYTES`) and declaring `dims` pixels
    (`peek`), is not shipped; None: it is."""
    ext = posixpath.splitext(rel)[1].lower()
    if head.startswith(LFS_POINTER):
        return Unshipped("image-lfs-pointer", f"{rel} is a Git LFS pointer, not the picture: "
                         "not shipped (install git-lfs and run `git lfs pull`)")
    if ext == ".svg":
        return Unshipped("image-format", f"{rel} is an SVG drawing, which a release does not "
                         "ship (it can hold script): not shipped (export it as PNG)")
    if ext not in IMAGE_TYPES:
        kind = "a HEIF/HEIC photo" if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS \
            else f"a {ext or 'extensionless'!r} file"
        return Unshipped("image-format", f"{rel} is {kind}, which devices' browsers do not "
                         "show: not shipped (save it as PNG, JPEG or WebP)")
    if size > MAX_IMAGE_BYTES:
        mib = math.ceil(size / 2**20 * 10) / 10  # never rounded down to the limit
        return Unshipped("image-too-large", f"{rel} is {mib} MiB; a release ships images up "
                         f"to {MAX_IMAGE_BYTES // 2**20} MiB: not shipped (resize it)")
    if size == 0:
        return Unshipped("image-not-picture", f"{rel} is empty: not shipped")
    if picture_kind(head) is None:
        heif = head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS
        what = "a HEIF/HEIC photo, which devices' browsers do not show" if heif else \
            "not a PNG, JPEG, GIF, WebP or AVIF picture"
        return Unshipped("image-not-picture", f"{rel} is {what} (whatever its name says): "
                         "not shipped (save it as PNG, JPEG or WebP)")
    if dims is not None and dims[0] * dims[1] > MAX_IMAGE_PIXELS:
        return Unshipped("image-too-large", f"{rel} is {dims[0]:,} × {dims[1]:,} pixels; a "
                         f"release ships images of up to {MAX_IMAGE_PIXELS // 10**6} megapixels "
                         "(a browser decodes every pixel): not shipped (resize it)")
    return None


def file_left_out(rel: str, size: int, head: bytes,
                  dims: Dimensions = None) -> Unshipped | None:
    """Why the file `rel` (repository-relative), linked (not shown) and no picture, of `size`
    bytes beginning with `head`, is not shipped; None: it is (a PDF)."""
    ext = posixpath.splitext(rel)[1].lower()
    if ext in IMAGE_TYPES:
        return left_out(rel, size, head, dims)
    code = "file-not-shipped"
    if ext not in FILE_TYPES:
        kind = f"a {ext!r} file" if ext else "a file without an extension"
        return Unshipped(code, f"{rel} is {kind}, which a release does not ship (only PDFs "
                         "and pictures): devices will not have it (link a PDF of it, or write what it says in the document)")
    if head.startswith(LFS_POINTER):
        return Unshipped(code, f"{rel} is a Git LFS pointer, not the PDF: devices will not "
                         "have it (install git-lfs and run `git lfs pull`)")
    if size > MAX_FILE_BYTES:
        mib = math.ceil(size / 2**20 * 10) / 10  # never rounded down to the limit
        return Unshipped(code, f"{rel} is {mib} MiB; a release ships PDFs up to "
                         f"{MAX_FILE_BYTES // 2**20} MiB: devices will not have it "
                         "(split or compress it)")
    if not head.startswith(b"%PDF-"):
        what = "empty" if size == 0 else "not a PDF (whatever its name says)"
        return Unshipped(code, f"{rel} is {what}: devices will not have it")
    return None


def peek(root: Path, rel: str,
         real_dirs: dict[str, str] | None = None) -> tuple[int, bytes, Dimensions] | None:
    """The size, first `HEAD_BYTES` and declared pixels (`pixels.picture_size`, read from
    its header) of the file `rel` under `root`, or None when it is no regular file inside
    `root` (symlinks followed, but not into a hidden entry there such as `.git`:
    `linkscope.hidden_target`), one Git ignores (`kbtools.ignored`), or cannot be read.

    `real_dirs`, shared by the calls of one pass over many files, keeps the real path of
    each folder (and of `root`) it resolved: a folder of 2,000 pictures is resolved once,
    not once per picture (two `realpath`s each, one `lstat` per path component, were 80% of
    a warm `kb check`'s time on its pictures). The file itself is looked at every time."""
    try:
        dirs = {} if real_dirs is None else real_dirs
        real_root = dirs.get("") or dirs.setdefault("", os.path.realpath(root))
        folder, name = posixpath.split(rel)
        real_folder = dirs.get(folder) if folder else real_root
        if real_folder is None:
            real_folder = dirs.setdefault(folder, os.path.realpath(root / folder))
        real = os.path.join(real_folder, name)
        if not name or name in (".", "..") or stat.S_ISLNK(os.lstat(real).st_mode):
            real = os.path.realpath(real)
        if not is_inside(real, real_root) or hidden_target(rel, real, real_root) is not None \
                or ignored_target(real, real_root) is not None:  # (no part of the repository)
            return None
        if not stat.S_ISREG(os.stat(real).st_mode):
            return None
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO swapped in
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            head = os.read(fd, HEAD_BYTES)
            return st.st_size, head, picture_size(head, lambda at, n: _read_at(fd, at, n))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None


def _read_at(fd: int, offset: int, length: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def linked_path(doc: str, src: str) -> str | None:
    """The repository-relative posix path a link of `doc` names (percent-decoded), or None
    when the link is not a relative link inside the repository."""
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
    return joined


def file_path(doc: str, src: str) -> str | None:
    """The repository-relative posix path of the file a link of `doc` names, or None when the
    link is not a relative link inside the repository or names a document (Markdown) or an
    image of a shipped type (`image_path`: the release ships those as pictures)."""
    joined = linked_path(doc, src)
    if joined is None or joined.lower().endswith(MARKDOWN) \
            or posixpath.splitext(joined)[1].lower() in IMAGE_TYPES:
        return None
    return joined


def shipped_path(doc: str, src: str) -> str | None:
    """The repository-relative posix path a link of `doc` names when it is of a type a
    release ships (a picture or a PDF) and `kb serve` serves; None for any other link."""
    joined = linked_path(doc, src)
    if joined is None or posixpath.splitext(joined)[1].lower() not in SHIPPED_TYPES:
        return None
    return joined


def image_path(doc: str, src: str) -> str | None:
    """The repository-relative posix path an image link of `doc` names, or None when the link
    is not a relative link to an image of a shipped type inside the repository."""
    joined = linked_path(doc, src)
    if joined is None or posixpath.splitext(joined)[1].lower() not in IMAGE_TYPES:
        return None
    return joined


def ship_images(shown: Iterable[str], linked: Iterable[str], root: Path,
                source_dir: Path) -> ShippedImages:
    """Copy each file documents show as an image (`shown`) and each other file they link
    (`linked`), repository-relative paths as `kb check` found them (`DocResult.images` and
    `.files`: Markdown links and images, reference definitions and raw HTML `<a href>` and
    `<img src>` alike), from `root` into `source_dir` under its repository-relative path;
    returns the paths copied and why the others were left out (files that cannot be read,
    or are no regular file inside the repository, are left out silently: `kb check`
    reports those links). A file shown as an image and linked as well ships when either use
    ships it."""
    shown, linked = set(shown), set(linked)
    out = ShippedImages()
    real_dirs: dict[str, str] = {}
    for rel in sorted(shown | linked):
        found = peek(root, rel, real_dirs)
        if found is None:
            continue
        why = left_out(rel, *found) if rel in shown else None
        why_file = file_left_out(rel, *found) if rel in linked else None
        if why is not None:
            out.left_out[rel] = why
        if why_file is not None:
            out.files_left_out[rel] = why_file
        if (rel not in shown or why is not None) and (rel not in linked or why_file is not None):
            continue
        limit = MAX_FILE_BYTES if rel in linked and why_file is None else MAX_IMAGE_BYTES
        try:
            data = read_source(root / rel, root, limit)
        except SourceError:  # replaced or grown since
            continue
        atomic_write_bytes(source_dir / rel, data)
        out.copied.append(rel)
    return out
