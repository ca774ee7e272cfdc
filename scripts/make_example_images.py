"""Draw the small example field photos in assets/images/ (stdlib only: zlib + struct).

The pictures are schematic drawings (a leaf or an ear with lesions, a larva, a filter
element), not real photographs; they exist so the example knowledge has genuine PNG files
to link to. Output is deterministic: running the script twice gives identical bytes.

    python scripts/make_example_images.py [OUT_DIR]
"""

from __future__ import annotations

import math
import random
import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

Color = tuple[int, int, int]
W, H = 160, 120


def png_bytes(pixels: list[list[Color]]) -> bytes:
    """Encode rows of RGB tuples as an 8-bit truecolour PNG."""
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


class Canvas:
    def __init__(self, background: Color) -> None:
        self.px = [[background] * W for _ in range(H)]

    def fill(self, inside: Callable[[float, float], bool], color: Color) -> None:
        for y in range(H):
            for x in range(W):
                if inside(x + 0.5, y + 0.5):
                    self.px[y][x] = color

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, color: Color,
                angle: float = 0.0) -> None:
        ca, sa = math.cos(angle), math.sin(angle)

        def inside(x: float, y: float) -> bool:
            dx, dy = x - cx, y - cy
            u, v = dx * ca + dy * sa, -dx * sa + dy * ca
            return (u / rx) ** 2 + (v / ry) ** 2 <= 1.0

        self.fill(inside, color)

    def line(self, x0: float, y0: float, x1: float, y1: float, color: Color, width: float) -> None:
        length = math.hypot(x1 - x0, y1 - y0) or 1.0

        def inside(x: float, y: float) -> bool:
            t = max(0.0, min(1.0, ((x - x0) * (x1 - x0) + (y - y0) * (y1 - y0)) / length ** 2))
            return math.hypot(x - (x0 + t * (x1 - x0)), y - (y0 + t * (y1 - y0))) <= width / 2

        self.fill(inside, color)

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        for y in range(max(0, y0), min(H, y1)):
            for x in range(max(0, x0), min(W, x1)):
                self.px[y][x] = color


SOIL: Color = (196, 178, 140)
SKY: Color = (214, 230, 240)
LEAF: Color = (74, 140, 60)
VEIN: Color = (52, 108, 44)


def wheat_scab_ear(rng: random.Random) -> Canvas:
    c = Canvas(SKY)
    c.line(80, 118, 80, 70, (120, 150, 70), 4)
    for i in range(9):  # spikelets, the upper ones bleached and pink with mould
        y = 22 + i * 6
        healthy = i >= 4
        body = (150, 170, 80) if healthy else (232, 214, 168)
        for side in (-1, 1):
            c.ellipse(80 + side * 7, y, 8, 4, body, angle=side * 0.5)
            if not healthy:
                c.ellipse(80 + side * 9, y + 1, 3, 2, (236, 150, 160))
    for _ in range(12):
        c.ellipse(rng.uniform(70, 90), rng.uniform(18, 42), 1.5, 1.5, (226, 120, 140))
    return c


def corn_rust_leaf(rng: random.Random) -> Canvas:
    c = Canvas(SOIL)
    c.ellipse(80, 60, 76, 20, LEAF, angle=-0.15)
    c.line(6, 71, 154, 49, VEIN, 2)
    for _ in range(70):  # small round orange pustules scattered densely on the upper side
        x = rng.uniform(20, 140)
        y = 60 - 0.15 * (x - 80) + rng.uniform(-13, 13)
        c.ellipse(x, y, 1.6, 1.4, (214, 120, 30))
    return c


def rice_blast_leaf(rng: random.Random) -> Canvas:
    c = Canvas((170, 196, 150))
    c.ellipse(80, 60, 78, 12, (90, 150, 64), angle=0.1)
    for _ in range(6):  # spindle lesions: grey centre, brown margin
        x = rng.uniform(25, 135)
        y = 60 + 0.1 * (x - 80)
        c.ellipse(x, y, 9, 3.5, (130, 80, 40), angle=0.1)
        c.ellipse(x, y, 6, 2, (190, 190, 180), angle=0.1)
    return c


def fall_armyworm_larva(rng: random.Random) -> Canvas:
    c = Canvas(LEAF)
    for i in range(10):
        x = 30 + i * 10
        y = 62 + 6 * math.sin(i / 2)
        c.ellipse(x, y, 7, 8, (110, 90, 70))
    c.ellipse(128, 62 + 6 * math.sin(5), 7, 7, (60, 40, 30))  # head capsule
    c.line(124, 57, 128, 66, (235, 235, 220), 1.5)  # the pale inverted-Y mark
    for i in range(10):  # four dark dots on each segment, square on the 8th
        x = 30 + i * 10
        y = 62 + 6 * math.sin(i / 2)
        gap = 4 if i == 7 else 2
        for dx in (-gap, gap):
            c.ellipse(x + dx, y - 3, 1.2, 1.2, (20, 20, 20))
    return c


def filter_element(rng: random.Random) -> Canvas:
    c = Canvas((225, 225, 228))
    c.rect(50, 20, 110, 100, (90, 96, 104))  # housing
    c.rect(56, 26, 104, 94, (210, 196, 120))  # pleated paper element
    for x in range(58, 104, 5):
        c.rect(x, 26, x + 2, 94, (170, 150, 80))
    for _ in range(25):  # dark sludge deposits on a used element
        c.ellipse(rng.uniform(58, 102), rng.uniform(70, 92), 2.5, 1.5, (60, 50, 40))
    c.rect(70, 8, 90, 20, (60, 64, 70))  # outlet port
    return c


IMAGES: dict[str, Callable[[random.Random], Canvas]] = {
    "wheat-scab-ear.png": wheat_scab_ear,
    "corn-rust-leaf.png": corn_rust_leaf,
    "rice-blast-leaf.png": rice_blast_leaf,
    "fall-armyworm-larva.png": fall_armyworm_larva,
    "hx260-return-filter.png": filter_element,
}


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "assets" / "images"
    out.mkdir(parents=True, exist_ok=True)
    for i, (name, draw) in enumerate(sorted(IMAGES.items())):
        data = png_bytes(draw(random.Random(i + 1)).px)
        (out / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
