"""A video or a sound an author writes as HTML (`<video controls src="assets/a.mp4">`,
`<audio controls>` with its `<source src="x.mp3">`), on a device's page: `media_block` for
an HTML block, `media_tag` for a tag inline in a paragraph.

`media_block(html, ctx)` reads an HTML block that is nothing but such players (and their
`<source>`s, a fallback text a browser shows only when it plays none, a wrapper centring
them) as the page's own players: `controls` always (a player with none cannot be started
on a tablet), each file the release ships (`RenderContext.has_asset`, as pictures are shown
only when shipped), a `poster` the release ships as a picture, a `width`/`height` in pixels;
every other attribute (`autoplay`, `onplay=…`, `style`) is dropped. A file named by a remote
address (`https://…/拆卸.mp4`: `kb check` warned `media-remote`) is said, never played, as
is one the release lacks; one of any other scheme (`javascript:`) is dropped. None when the
block holds anything else: the page shows it as its escaped source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from markdown_it.common.utils import escapeHtml

from kbtools.markdown.html_tags import TAG_BODY, HtmlTag, start_tags
from kbtools.render.images import file_path, image_path
from kbtools.serve.passes import RenderContext
from kbtools.serve.picsize import pixels

# a block of players: their tags, their `<source>`s and `<track>`s, wrappers, and text
# between tags (a fallback a browser shows only when it plays nothing); linear: a tag's body
# stops at its first `<`, text is a possessive run of no `<`
_MEDIA_ONLY = re.compile(rf"(?:</?(?:video|audio|source|track|center|p|div|figure)\b{TAG_BODY}>"
                         r"|[^<]++)+", re.I)
_PLAYERS = frozenset({"video", "audio"})
_INSIDE = frozenset({"source", "track"})  # a player's files and captions


@dataclass
class OpenPlayer:
    """An inline `<video>` or `<audio>` shown (`media_tag`), its end tag to come."""

    tag: HtmlTag
    named: bool  # a file is written for it (its `src`, a `<source src>`)


def media_block(html: str, ctx: RenderContext) -> list[str] | None:
    """The page's markup of each player `html` (an HTML block's source, its tags read
    plainly) holds, or None when it holds another tag or no player."""
    if not _MEDIA_ONLY.fullmatch(html):
        return None
    tags = start_tags(html, frozenset({"video", "audio", "source"}))
    if not tags or tags[0].name not in _PLAYERS:
        return None
    shown: list[str] = []
    for at, tag in enumerate(tags):
        if tag.name in _PLAYERS:
            sources = [t for t in tags[at + 1:next((i for i in range(at + 1, len(tags))
                                                     if tags[i].name in _PLAYERS), len(tags))]]
            shown.append(_player(tag, sources, ctx))
    return shown


def media_tag(html: str, ctx: RenderContext, shown: list[OpenPlayer]) -> str | None:
    """An inline `<video>` or `<audio>` tag (on a line with other words, or followed by its
    `<source>`s on its line, it is no HTML block) as its player or what is said of its file,
    noted in `shown` (the players open); inside one, each `<source src=…>` of a player naming
    no file of its own as its player or what is said of it, a `<track>` (captions: a release
    ships no `.vtt`) and the end tag as nothing, or as what is said of a player naming no
    file (`<video controls></video>`: else the page shows nothing there); None for any
    other tag (shown escaped)."""
    lower = html.lower()
    if lower.startswith("</") and lower.endswith(">") and lower[2:-1].strip() in _PLAYERS:
        name = lower[2:-1].strip()
        at = next((i for i in range(len(shown) - 1, -1, -1) if shown[i].tag.name == name),
                  None)
        if at is None:
            return None
        return "" if shown.pop(at).named else _no_file(ctx)
    tags = start_tags(html, _PLAYERS | _INSIDE)
    if len(tags) != 1 or tags[0].start or tags[0].end != len(html):
        return None
    tag = tags[0]
    if tag.name in _INSIDE:
        if not shown:
            return None
        if tag.name == "track":
            return ""
        if shown[-1].tag.attrs.get("src", "").strip() or not tag.attrs.get("src", "").strip():
            return ""  # a player playing its own file, or a source naming none
        shown[-1].named = True
        return _player(shown[-1].tag, [tag], ctx)
    named = bool(tag.attrs.get("src", "").strip())
    shown.append(OpenPlayer(tag, named))
    return _player(tag, [], ctx) if named else ""


def unclosed(ctx: RenderContext, shown: list[OpenPlayer]) -> str:
    """What is said where a run of inline text ends of the players in `shown` left open (no
    `</video>`: `拆卸 <video controls> 见上`): as at an end tag, that a player naming no
    file names none (else the page showed nothing of it); `shown` is emptied, since a
    player's `<source>`s lie in its own run."""
    said = "".join(" " + _no_file(ctx) for player in shown if not player.named)
    shown.clear()
    return said


def _player(tag: HtmlTag, sources: list[HtmlTag], ctx: RenderContext) -> str:
    """One `<video>` or `<audio>` and the `<source>` tags after it as the page shows them."""
    written = [(tag.attrs["src"], "")] if tag.attrs.get("src", "").strip() else []
    written += [(s.attrs["src"], s.attrs.get("type", "")) for s in sources
                if s.attrs.get("src", "").strip()]
    if not written:
        return _no_file(ctx)
    played: list[tuple[str, str]] = []
    said: list[str] = []
    for src, kind in written:
        parts = urlsplit(src.strip())
        if parts.scheme in ("http", "https") or parts.netloc:  # an offline device: said
            said.append(f'<a href="{escapeHtml(src.strip())}" rel="noopener noreferrer '
                        f'nofollow" class="external">{escapeHtml(src.strip())}</a>')
        elif parts.scheme:  # `javascript:`, `data:`: nothing
            continue
        elif (rel := file_path(ctx.doc, parts.path)) is not None and ctx.has_asset(rel):
            played.append((ctx.url("asset", rel), kind))
        elif rel is not None:
            said.append(escapeHtml(parts.path))
    note = ""
    if said:
        note = (f'<span class="missing-file">{"、".join(said)}</span> <span class="missing-note"'
                f'{_lang(ctx)}>({escapeHtml(ctx.missing_file)})</span>')
    if not played:
        return note
    attrs = " controls"
    poster = image_path(ctx.doc, tag.attrs.get("poster", "")) if tag.name == "video" else None
    if poster is not None and ctx.has_asset(poster):
        attrs += f' poster="{escapeHtml(ctx.url("asset", poster))}"'
    for side in ("width", "height"):
        if tag.name == "video" and (size := pixels(tag.attrs.get(side))):
            attrs += f' {side}="{size}"'
    inner = "".join(f'<source src="{escapeHtml(url)}"'
                    + (f' type="{escapeHtml(kind)}"' if kind else "") + ">" for url, kind in played)
    return f'<{tag.name}{attrs} preload="metadata">{inner}</{tag.name}>' + (f" {note}" if note else "")


def _no_file(ctx: RenderContext) -> str:
    """What the page shows for a player whose HTML names no file to play."""
    return f'<span class="missing-note"{_lang(ctx)}>({escapeHtml(ctx.no_media_file)})</span>'


def _lang(ctx: RenderContext) -> str:
    return f' lang="{escapeHtml(ctx.ui_lang)}"' if ctx.ui_lang else ""
