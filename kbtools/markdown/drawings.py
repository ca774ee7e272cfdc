"""Obsidian's Excalidraw drawings saved as Markdown (`x.excalidraw.md`): what of them is words.

The Excalidraw plugin writes a drawing as a Markdown file that Obsidian opens in its drawing
view: front matter `excalidraw-plugin: parsed` (or `raw`), a banner ("Switch to EXCALIDRAW
VIEW in the MORE OPTIONS menu …"), a `# Excalidraw Data` heading (older versions: none),
a `## Text Elements` section holding the words written on the drawing, one paragraph each
ending in its element's block id (`液压泵站 ^aB3dE6fG`), then `## Element Links`,
`## Embedded Files` (`<hash>: [[Pasted image.png]]`) and a `## Drawing` section of JSON,
most often compressed (a `compressed-json` fence of base64), usually inside `%%`.

None of that is a document: `kb check` says so (`kbtools.check.engine`, `doc-drawing`), and
a lenient build indexes the Text Elements' words alone, under the drawing's name
(`kbtools.build.chunk`): the banner, links, file list and compressed JSON are no text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEY = "excalidraw-plugin"
SUFFIX = ".excalidraw.md"
TEXT_ELEMENTS = "text elements"


def is_drawing(meta: Mapping[str, Any]) -> bool:
    """A file the Excalidraw plugin wrote: its front matter has `excalidraw-plugin`."""
    return any(isinstance(k, str) and k.strip().lower() == KEY for k in meta)


def drawing_name(rel: str) -> str:
    """The drawing's name: its file name less `.excalidraw.md` (or `.md`)."""
    name = rel.rsplit("/", 1)[-1]
    for suffix in (SUFFIX, ".md"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def drawing_title(meta: Mapping[str, Any], rel: str) -> str:
    """The title a drawing without a front-matter `title` is listed and cited under: its
    name (`泵站示意` for `泵站示意.excalidraw.md`); "" for any other document."""
    return drawing_name(rel) if is_drawing(meta) else ""


def heading_text(line: str) -> str | None:
    """The text of an ATX heading line (`## Text Elements` → `Text Elements`), else None."""
    text = line.lstrip(" ")
    level = len(text) - len(text.lstrip("#"))
    if len(line) - len(text) > 3 or not 1 <= level <= 6:
        return None
    rest = text[level:]
    if rest and rest[0] not in " \t":
        return None
    return rest.strip().rstrip("#").strip()


def text_elements(lines: tuple[str, ...] | list[str], body_line: int) -> list[tuple[int, int]]:
    """The (first, last) 1-based lines of each `Text Elements` section's text, its heading
    left out: up to the next heading or a `%%` line (a comment hiding the drawing's data)."""
    out: list[tuple[int, int]] = []
    start = 0
    fence = ""
    for n in range(max(body_line, 1), len(lines) + 1):
        line = lines[n - 1]
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        heading = heading_text(line)
        if start and (heading is not None or fence or stripped.startswith("%%")):
            out.append((start, n - 1))
            start = 0
        if heading is not None and heading.lower() == TEXT_ELEMENTS:
            start = n + 1
    if start:
        out.append((start, len(lines)))
    return [(a, b) for a, b in out
            if any(lines[i - 1].strip() for i in range(a, b + 1))]
