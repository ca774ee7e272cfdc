"""The size a document's picture is shown at on a page: the one its author gave, else the
one its file declares.

An author gives a size in pixels (`width="300"`, `300px`; what `kb check --fix` writes for
Obsidian's `![[a.png|300]]`), as a share of the text's width (`width="50%"`), or, as Typora
writes a picture resized by its menu, as a zoom of the picture's own size
(`<img src="a.png" style="zoom:50%;" />`). The page gives every picture `width` and `height`
attributes (the browser keeps its place while it loads; the page's policy allows no style
attribute, so a zoom is shown as the size it makes); a share is a `width` alone, the
style sheet keeping the proportions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MAX_ZOOM = 10.0  # a zoom beyond this (`zoom:5000%`) is a slip, not a size: ignored


@dataclass(frozen=True)
class GivenSize:
    """The size an author gave a picture (0, "" or 1.0: not given)."""

    width: int = 0  # pixels
    height: int = 0
    share: int = 0  # percent of the text's width (`width="50%"`)
    zoom: float = 1.0  # of the size given, else of the file's (Typora's `zoom:50%`)


NOT_GIVEN = GivenSize()


def pixels(value: str | None) -> int:
    """A size attribute in pixels (`300`, `300px`); 0 when it is none or another unit."""
    text = (value or "").strip().lower().removesuffix("px").strip()
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) <= 5 else 0


def _percent(value: str | None) -> int:
    """A size attribute as a share of the width (`50%`), 1-100; 0 for any other."""
    text = (value or "").strip()
    if not text.endswith("%"):
        return 0
    n = pixels(text[:-1])
    return n if n <= 100 else 0


def zoom_of(style: str | None) -> float:
    """The `zoom` an inline `style` declares (`zoom:50%;`, `zoom: 0.5`), 1.0 when none or
    none a picture can be shown at."""
    for declaration in (style or "").split(";"):
        name, colon, value = declaration.partition(":")
        if not colon or name.strip().lower() != "zoom":
            continue
        text = value.lower().replace("!important", "").strip()
        scale = 100.0 if text.endswith("%") else 1.0
        text = text.removesuffix("%").strip()
        digits = text.replace(".", "", 1)
        if text and digits.isascii() and digits.isdigit():
            zoom = float(text) / scale
            return zoom if 0 < zoom <= MAX_ZOOM else 1.0
    return 1.0


def given_size(attrs: Mapping[str, str]) -> GivenSize:
    """What an `<img>` tag's attributes (by lower-case name) say of its size."""
    return GivenSize(pixels(attrs.get("width")), pixels(attrs.get("height")),
                     _percent(attrs.get("width")), zoom_of(attrs.get("style")))


def size_attributes(given: GivenSize, natural: tuple[int, int] | None) -> str:
    """The `width`/`height` attributes of a picture whose file declares `natural` pixels
    (None: unknown): the size given wins, one side given and the other keeps the
    proportions; a zoom scales what that makes; a share is a `width` alone."""
    if given.share:
        return f' width="{max(1, min(100, round(given.share * given.zoom)))}%"'
    width, height = given.width, given.height
    known = natural if natural and all(natural) else None
    if known and not (width and height):
        if width or height:
            width = width or round(known[0] * height / known[1])
            height = height or round(known[1] * width / known[0])
        else:
            width, height = known
    if given.zoom != 1.0:
        width, height = round(width * given.zoom), round(height * given.zoom)
    return "".join(f' {k}="{v}"' for k, v in (("width", width), ("height", height)) if v > 0)
