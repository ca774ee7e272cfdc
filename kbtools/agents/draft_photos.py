"""Photos a draft carries (`kbtools.agents.draft`): a field technician's picture of the failed
part, sent as bytes (MCP `draft_report`: base64 in the call) or as a file (`kb draft new
--photo`).

Each is checked by its bytes as `kb check` checks a picture a document shows
(`kbtools.render.images.left_out`: PNG, JPEG, GIF, WebP or AVIF, up to 20 MiB and 100
megapixels; a HEIC photo, an empty file or an HTML page named ``.jpg`` is refused), at most
`MAX_PHOTOS` of at most `MAX_PHOTOS_BYTES` together. It is named safely under the assets
folder, in a folder of the draft's own name (``assets/field_reports/<draft>/1-pump.jpg``:
its number, an ASCII slug of the name it was sent with, the extension its bytes say), and
the draft's text ends with a section showing each by a relative link, so the draft and its
photos are one commit (both or neither) that `kb check` passes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kbtools.agents.arguments import MAX_CAPTION_CHARS, MAX_PHOTO_NAME_CHARS
from kbtools.agents.draft_text import check_text, slugify
from kbtools.errors import UsageError
from kbtools.render.images import HEAD_BYTES, left_out, picture_kind
from kbtools.render.pixels import picture_size

MAX_PHOTOS = 8  # photos one draft carries
MAX_PHOTOS_BYTES = 40 * 1024 * 1024  # their bytes together (each: `left_out`'s 20 MiB)
SECTION = {"zh": "照片", "en": "Photos"}  # the heading of the section showing them
EXTENSIONS = {"png": ".png", "jpeg": ".jpg", "gif": ".gif", "webp": ".webp", "avif": ".avif"}
PHOTO_KEYS = ("name", "data", "caption")  # what the MCP tool's photo objects hold
UNSAID = str.maketrans("", "", "[]\\")  # what an alternative text cannot hold as written


@dataclass(frozen=True)
class Photo:
    name: str  # as sent (a file name): its slug names the stored file
    data: bytes
    caption: str = ""  # the picture's alternative text (default: the name without extension)

    @property
    def stem(self) -> str:
        """Its name without folders (a device's ``/sdcard/DCIM/x.jpg``) or extension."""
        return posixpath.splitext(self.name.replace("\\", "/").rsplit("/", 1)[-1])[0].strip()

    @property
    def alt(self) -> str:
        return self.caption.strip() or self.stem or "photo"


@dataclass(frozen=True)
class Carried:
    """The photos a draft carries, checked (`check_photos`: the extension of each), and the
    assets folder they are stored under (relative to the knowledge repository's root)."""

    photos: tuple[Photo, ...] = ()
    extensions: tuple[str, ...] = ()
    assets: str = "assets"

    def paths(self, draft: str) -> list[str]:
        """Where the photos of the draft at `draft` are stored (`photo_paths`)."""
        return photo_paths(self.photos, self.extensions, self.assets, draft)


def carried(photos: Sequence[Photo], assets: str) -> Carried:
    """`photos` checked (`check_photos`), to be stored under the assets folder `assets` (kb.toml
    [paths] assets); UsageError when that folder lies outside the repository."""
    folder = posixpath.normpath(assets.strip())
    if photos and (folder.startswith(("/", "../")) or folder in ("..", ".")):
        raise UsageError(f"photos are stored under the assets folder, and kb.toml [paths] "
                         f"assets = {assets!r} is no folder inside the repository")
    return Carried(tuple(photos), tuple(check_photos(photos)), folder)


def decoded_photos(items: Sequence[Any] | None) -> list[Photo]:
    """The photos of MCP `draft_report`'s `photos`: objects with a `name`, base64 `data` and
    an optional `caption`; UsageError naming the photo and what is wrong."""
    photos = []
    for n, item in enumerate(items or (), start=1):
        if not isinstance(item, dict) or set(item) - set(PHOTO_KEYS) or \
                not isinstance(item.get("name"), str) or not isinstance(item.get("data"), str):
            raise UsageError(f"photo {n} must be an object with `name` (text), `data` (the "
                             "picture's bytes in base64) and an optional `caption`")
        if len(item["name"]) > MAX_PHOTO_NAME_CHARS:
            raise UsageError(f"photo {n}: `name` is at most {MAX_PHOTO_NAME_CHARS} characters, "
                             f"not {len(item['name'])}")
        if len(item["data"]) > MAX_PHOTOS_BYTES * 4 // 3 + 4:
            raise UsageError(f"photo {n} ({item['name']}) is over {MAX_PHOTOS_BYTES // 2**20} "
                             "MiB; send a smaller picture")
        try:
            data = base64.b64decode("".join(item["data"].split()), validate=True)
        except (binascii.Error, ValueError):
            raise UsageError(f"photo {n} ({item['name']}): `data` is not base64 (the "
                             "picture's bytes, standard alphabet, padded)") from None
        caption = item.get("caption") or ""
        if not isinstance(caption, str):
            raise UsageError(f"photo {n} ({item['name']}): `caption` must be text")
        if len(caption) > MAX_CAPTION_CHARS:
            raise UsageError(f"photo {n} ({item['name']}): `caption` is at most "
                             f"{MAX_CAPTION_CHARS} characters, not {len(caption)}")
        photos.append(Photo(item["name"], data, caption))
    return photos


def read_photos(paths: Sequence[Path]) -> list[Photo]:
    """The photos `kb draft new --photo FILE` names, read whole (at most `MAX_PHOTOS_BYTES`
    each); UsageError naming a file that cannot be read."""
    photos = []
    for path in paths:
        try:
            with path.open("rb") as f:
                data = f.read(MAX_PHOTOS_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"cannot read the photo: {exc.strerror or exc}",
                             path=str(path)) from None
        photos.append(Photo(path.name, data))
    return photos


def check_photos(photos: Sequence[Photo]) -> list[str]:
    """Refuse what a draft cannot carry, in one line naming the photo: too many, too large
    together, or one `kb check` would warn of (`left_out`). The extension of each as its
    bytes say it (a JPEG sent as ``pump.png`` is stored as ``.jpg``)."""
    if len(photos) > MAX_PHOTOS:
        raise UsageError(f"{len(photos)} photos: a draft carries at most {MAX_PHOTOS}")
    if sum(len(p.data) for p in photos) > MAX_PHOTOS_BYTES:
        raise UsageError(f"the photos are over {MAX_PHOTOS_BYTES // 2**20} MiB together; send "
                         "fewer or smaller pictures")
    extensions = []
    for n, photo in enumerate(photos, start=1):
        check_text(f"photo {n} name", photo.name, multiline=False)
        check_text(f"photo {n} caption", photo.caption, multiline=False)
        head = photo.data[:HEAD_BYTES]
        kind = picture_kind(head)
        shown = photo.name if kind is None else \
            posixpath.splitext(photo.name)[0] + EXTENSIONS[kind]
        size = picture_size(head, _reader(photo.data))
        why = left_out(shown or "photo", len(photo.data), head, size)
        if why is not None:
            raise UsageError(f"photo {n} cannot be attached: "
                             f"{why.message.replace(': not shipped', '')}")
        extensions.append(EXTENSIONS[kind or ""])
    return extensions


def _reader(data: bytes) -> Callable[[int, int], bytes]:
    """`picture_size`'s reader of the bytes `data`: `n` of them from `at`."""
    return lambda at, n: data[at:at + n]


def photo_paths(photos: Sequence[Photo], extensions: Sequence[str], assets: str,
                draft: str) -> list[str]:
    """Where each photo is stored: under `assets` (repository-relative), in a folder named for
    the draft (`draft`, its path) in the folder its own folder is named: its number and an
    ASCII slug of its name (`draft_text.slugify`), with the extension its bytes say."""
    folder = posixpath.join(assets, posixpath.basename(posixpath.dirname(draft)),
                            posixpath.basename(draft).removesuffix(".md"))
    return [posixpath.join(folder, f"{n}-{slugify(p.stem) if p.stem else 'photo'}{ext}")
            for n, (p, ext) in enumerate(zip(photos, extensions, strict=True), start=1)]


def with_photos(text: str, photos: Sequence[Photo], paths: Sequence[str], draft: str,
                lang: str) -> str:
    """`text` ending with a section that shows each photo by a link relative to the draft."""
    if not photos:
        return text
    here = posixpath.dirname(draft)
    shown = "\n\n".join(f"![{p.alt.translate(UNSAID)}]({quote(posixpath.relpath(path, here))})"
                        for p, path in zip(photos, paths, strict=True))
    heading = SECTION.get(str(lang)[:2].casefold(), SECTION["en"])
    return f"{text.rstrip()}\n\n## {heading}\n\n{shown}\n"


def photos_key(photos: Sequence[Photo]) -> str:
    """What of the photos makes two calls one draft (`draft.draft_key`): their bytes."""
    return "".join(hashlib.sha256(p.data).hexdigest() for p in photos)
