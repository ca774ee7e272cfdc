"""How many pixels a picture declares, read from its header without decoding it.

A PNG of a few kilobytes (or a GIF, a WebP, a JPEG, an AVIF) may declare 100,000 × 100,000
pixels: a decompression bomb. Its bytes are small, so the size limit lets it through, and a
device's browser that shows it tries to decode tens of gigabytes. `picture_size` reads the
width and height the file declares (PNG `IHDR`, GIF's logical screen, WebP's `VP8 `/`VP8L`/
`VP8X`, a JPEG's start-of-frame segment, AVIF's `ispe` properties), so `images.left_out` can
refuse such a picture before it ships. `svg_size` reads the size a formula SVG declares on its
root element, in CSS pixels (the web app gives every picture its size before it loads).
"""

from __future__ import annotations

import struct
import xml.parsers.expat
from collections.abc import Callable

# a JPEG's segments are walked until its frame header, at most this far into the file
JPEG_SCAN_BYTES = 1 << 20
JPEG_MAX_SEGMENTS = 512
# AVIF keeps its image properties (`ispe`) in the `meta` box at the start of the file
AVIF_SCAN_BYTES = 64 << 10
# start-of-frame markers (SOF0–SOF15 but DHT C4, JPG C8 and DAC CC) carry height and width
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}

# CSS pixels in one of each unit an SVG's width and height may be given in (none: pixels)
CSS_PX = {"px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}

Reader = Callable[[int, int], bytes]  # (offset, length) -> up to length bytes of the file


def picture_size(head: bytes, read: Reader) -> tuple[int, int] | None:
    """(width, height) the picture beginning with `head` declares, or None when its header
    names no size (or is cut short); `read` reads more of the file where the size lies
    further in (a JPEG's frame header after its EXIF block, AVIF's properties)."""
    if head.startswith(b"\x89PNG") and head[12:16] == b"IHDR" and len(head) >= 24:
        w, h = struct.unpack(">II", head[16:24])
        return w, h
    if head.startswith(b"GIF8") and len(head) >= 10:
        w, h = struct.unpack("<HH", head[6:10])
        return w, h
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return _webp_size(head)
    if head.startswith(b"\xff\xd8\xff"):
        return _jpeg_size(read)
    if head[4:8] == b"ftyp":
        return _avif_size(read(0, AVIF_SCAN_BYTES))
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    kind = head[12:16]
    if kind == b"VP8X" and len(head) >= 30:
        return 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
    if kind == b"VP8L" and len(head) >= 25:
        bits = int.from_bytes(head[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 " and len(head) >= 30:
        w, h = struct.unpack("<HH", head[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _jpeg_size(read: Reader) -> tuple[int, int] | None:
    """The frame header's size, the segments walked by their lengths from offset 2."""
    pos = 2
    for _ in range(JPEG_MAX_SEGMENTS):
        if pos >= JPEG_SCAN_BYTES:
            return None
        seg = read(pos, 9)
        if len(seg) < 4 or seg[0] != 0xFF:
            return None
        marker = seg[1]
        if marker == 0xFF:  # a fill byte before the marker
            pos += 1
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header before
            return None
        if 0xD0 <= marker <= 0xD8 or marker == 0x01:  # markers without a length
            pos += 2
            continue
        if marker in _SOF:
            if len(seg) < 9:
                return None
            h, w = struct.unpack(">HH", seg[5:9])
            return (w, h) if h else None  # height 0: given later (DNL), not declared here
        pos += 2 + struct.unpack(">H", seg[2:4])[0]
    return None


def _avif_size(data: bytes) -> tuple[int, int] | None:
    """The largest `ispe` (image spatial extents) property: a grid's size, not a tile's."""
    best: tuple[int, int] | None = None
    at = data.find(b"ispe")
    while at >= 0 and at + 16 <= len(data):
        w, h = struct.unpack(">II", data[at + 8:at + 16])  # after version and flags
        if best is None or w * h > best[0] * best[1]:
            best = (w, h)
        at = data.find(b"ispe", at + 4)
    return best


def svg_size(data: bytes) -> tuple[float, float] | None:
    """(width, height) in CSS pixels that an SVG's root element declares (``width='33.4pt'``),
    or None: not XML, no such attribute, a unit relative to its context (``em``, ``%``) or a
    size that is no positive number."""
    found: dict[str, str] = {}

    def start(name: str, attrs: dict[str, str]) -> None:
        found.update(attrs)
        raise StopIteration  # the root element is all that is read

    parser = xml.parsers.expat.ParserCreate()
    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except (StopIteration, xml.parsers.expat.ExpatError):
        pass
    size = tuple(_css_px(found.get(key, "")) for key in ("width", "height"))
    return (size[0], size[1]) if size[0] and size[1] else None


def _css_px(length: str) -> float | None:
    """A length with an absolute unit (`CSS_PX`) in CSS pixels; None for any other."""
    text = length.strip()
    unit = text[-2:] if text[-2:].isalpha() else ""
    try:
        value = float(text[:len(text) - len(unit)]) * CSS_PX[unit or "px"]
    except (KeyError, ValueError):
        return None
    return value if 0 < value < float("inf") else None
