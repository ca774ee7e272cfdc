"""Obsidian's `[[wikilinks]]` and `![[embeds]]`: one finding each, and the standard link
`kb check --fix` writes for one that names exactly one file.

To every other Markdown reader they are plain text: the picture an embed shows in Obsidian
is text there, and the note a wikilink names is never followed (a release ships the picture
or file one names, `LinkProblem.file`, and a device's page shows it). Each one
the scan found (`Scan.wikilinks`, never in code, math, HTML or a standard link's text) is an
error. Its target is resolved the way Obsidian resolves it, among the files of the
knowledge and assets folders (`FsCache.files_named`): a path relative to the document when
it starts with `./` or `../`; else a name, or a path ending the file's path, `.md` implied
for a note, the file of the same letter case preferred; among several files ending in a
path, the one it names from the repository, a searched folder or the document. A target
naming its file only in another letter case or Unicode form is followed as Obsidian follows
it, and its finding says so, and from which file (`case_note`: links are case-sensitive on
Linux and GitHub). Exactly one file gives the edit:

- `![[Pasted image 1.png|300]]` → `![Pasted image 1](../../assets/images/Pasted%20image%201.png)`
  (alt text: a label written after `|`, else the file name); one with a size (`|300`,
  `|300x200`, Obsidian's width and height in pixels) → `<img src="…" alt="…" width="300">`,
  as Typora writes a resized picture, which the device page shows at that width;
- `[[Other note#Heading|shown]]` → `[shown](../other/Other%20note.md#heading)` (the anchor is
  the heading's slug, `kbtools.markdown.parser.slugify`; text without a label:
  `Other note > Heading`; `kbtools.check.anchors` checks the heading exists once every
  document is read, and `--fix` writes another heading or none when it does not: the
  finding of such a wikilink, which says what `--fix` writes, is made there, not with its
  document's); an embedded note or PDF becomes a link (nothing is transcluded; a note's
  finding says to copy its text in where the page should show it). An embedded Excalidraw
  drawing (`x.excalidraw.md`, `kbtools.markdown.drawings`) gets no edit: its finding says to
  export the picture and link that.

Paths are written as the other path fixes write them (`links.written_path`). Several
files or none → the finding says so and nothing is written; a block reference (`#^id`, no
Markdown equivalent) to one note is named once the note's blocks are read
(`kbtools.check.anchors`, `kbtools.check.blocks`: the heading the block stands under, the
link to write by hand), and nothing is written; of none, Git history may say where the file went and `--fix`
write the standard link of the wikilink naming it (`kbtools.check.renames`, with
`matching`, `written_target`, `with_target` and `standard_link` here). The outcome depends on the document's text and on which files
exist (the results cache's tree signature), never on another document's content (the
headings of the note a wikilink's anchor names: `kbtools.check.anchors`, never cached).
"""

from __future__ import annotations

import os
import posixpath
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from kbtools.check.fscache import FsCache
from kbtools.check.links import Edit, LinkProblem, Missing, written_path
from kbtools.check.names import disk_key
from kbtools.findings import display_path
from kbtools.markdown.drawings import SUFFIX as DRAWING_SUFFIX
from kbtools.markdown.drawings import drawing_name
from kbtools.markdown.parser import heading_title, slugify

CODE = "link-wikilink"
# what Obsidian shows as a picture when embedded
EMBED_IMAGES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".avif"})
NOTE_TYPES = (".md", ".markdown")
MAX_LISTED = 5  # candidate files a finding names
# a note's embed becomes a link: a page shows no note inside another
TEXT_INSTEAD = (", a link (no page shows another note inside it; to have this page show "
                "the note's text, copy that text in instead)")
SETTINGS = ('so that Obsidian writes standard links: Settings → Files and links → '
            '"Use [[Wikilinks]]" off, "New link format": "Relative path to file"')


@dataclass(frozen=True)
class Wikilink:
    """`[[target#heading|label]]` or `![[…]]` as written, split."""

    raw: str
    embed: bool
    target: str  # the file as written ("" = this document)
    heading: str  # after the first '#' ("" = none; `a#b`: a sub-heading path)
    label: str  # after the first '|' ("" = none)

    @property
    def image(self) -> bool:
        """An embedded picture (by the extension written)."""
        return self.embed and posixpath.splitext(self.target)[1].lower() in EMBED_IMAGES

    @property
    def block(self) -> bool:
        """A block reference (`#^id`): no heading, no Markdown equivalent."""
        return self.heading.rsplit("#", 1)[-1].startswith("^")


def parse_wikilink(raw: str) -> Wikilink:
    """Split a wikilink as written (a table cell writes its `|` as `\\|`); a Chinese input
    method's full-width `｜` and `＃` split it as the `|` and `#` they stand for where no
    half-width one is written (`[[水泵｜泵]]`, `[[水泵＃安装步骤]]`)."""
    embed = raw.startswith("!")
    inner = raw[3 if embed else 2:-2].replace("\\|", "|")
    if "|" not in inner:
        inner = inner.replace("｜", "|")
    link, _, label = inner.partition("|")
    if "#" not in link:
        link = link.replace("＃", "#")
    target, _, heading = link.partition("#")
    return Wikilink(raw, embed, target.strip(), heading.strip(), label.strip())


def check_wikilinks(found: Sequence[tuple[int, int, str]], doc_rel: str, fs: FsCache,
                    folders: Iterable[Path]) -> list[tuple[int, int, LinkProblem]]:
    """A problem per wikilink written at (line, col), with the edit `--fix` applies when its
    target is one file; `folders`: where targets are searched (knowledge, assets), those
    inside the repository."""
    if not found:
        return []
    trees = search_trees(fs, folders) if not doc_rel.startswith("/") else []  # outside: none
    return [(line, col, _problem(parse_wikilink(raw), line, col, doc_rel, fs, trees))
            for line, col, raw in found]


def search_trees(fs: FsCache, folders: Iterable[Path]) -> list[str]:
    """`folders` inside the root, root-relative (one inside another: only the outer)."""
    out: list[str] = []
    for folder in folders:
        real = fs.realpath(os.fspath(folder))
        if real == fs.real_root or real.startswith(fs.real_root + os.sep):
            out.append(Path(os.path.relpath(real, fs.real_root)).as_posix())
    return [t for t in out if not any(o != t and (o == "." or t.startswith(o + "/"))
                                      for o in out)]


def _problem(link: Wikilink, line: int, col: int, doc_rel: str, fs: FsCache,
             trees: Sequence[str]) -> LinkProblem:
    head = describe(link)
    inner = link.raw[:-2]
    if (len(inner) - len(inner.rstrip("\\"))) % 2:  # `[[a|b\\]]`: `\\]` is an escaped `]`
        bare = inner.rstrip("\\") + "]]"
        return _error(f"{head}; it ends in a backslash, which escapes the `]` after it: "
                      f"Markdown reads no closing `]]` there, and `kb check --fix` leaves it "
                      f"as it is: write {quoted(bare)} (`kb check --fix` then writes a "
                      f"standard link for it) ({SETTINGS})")
    found = candidates(link, doc_rel, fs, trees) if link.target or link.heading else []
    if link.block and len(found) == 1:  # named with the note's blocks (`check.anchors`)
        return LinkProblem(CODE, "error", f"{head}; a block reference (#^…) has no Markdown "
                           f"equivalent: write a standard link to the document or one of "
                           f"its headings ({SETTINGS})",
                           Edit(line, col, link.raw, "", found[0],
                                link.heading.rsplit("#", 1)[-1], True, hint=True))
    if not found:
        where = " or ".join(f"{t}/" for t in trees) or "the repository"
        said = f"{head}; no file {quoted(link.target or link.raw)} in {where}"
        # a file of that name in Git history may have been renamed (`kbtools.check.renames`;
        # not for a block reference, whose standard link is written by hand), or the target
        # be a note's alias (`kbtools.check.aliases`, a block reference's too)
        missing = Missing(line, col, link.raw, link.target, "", said, wikilink=True) \
            if link.target and trees else None
        return LinkProblem(CODE, "error", f"{said}: write a standard relative link to an "
                           f"existing file ({SETTINGS})", missing=missing)
    if len(found) > 1:
        doc_dir = posixpath.dirname(doc_rel) or "."
        listed = ", ".join(repr(posixpath.relpath(f, doc_dir)) for f in found[:MAX_LISTED]) \
            + (", …" if len(found) > MAX_LISTED else "")
        return _error(f"{head}; {len(found)} files match ({listed}): write a standard relative "
                      f"link to the one meant, or a path in the wikilink ({SETTINGS})")
    if link.embed and found[0].lower().endswith(DRAWING_SUFFIX):  # no page shows it
        name = drawing_name(found[0])
        return _error(f"{head}; it shows an Excalidraw drawing, which no page or search can "
                      f"use: export the drawing as a picture (Excalidraw menu → Export image → "
                      f"SVG or PNG) into the assets folder and write a picture link to it, by "
                      f"its path relative to this document (`![{name}](…/{name}.svg)`)")
    new = standard_link(link, found[0], doc_rel)
    slug = heading_slug(link, found[0])
    return LinkProblem(CODE, "error", fix_message(link, new, case_note(link, found[0], doc_rel)),
                       Edit(line, col, link.raw, new, found[0] if slug else "", slug, True),
                       file="" if found[0].lower().endswith(NOTE_TYPES) else found[0])


def describe(link: Wikilink) -> str:
    """What the finding of `link` says first: what it is, and what kbtools makes of it."""
    what = "embed" if link.embed else "wikilink"
    effect = ("other Markdown readers show it as text" if link.image else
              "nothing is embedded" if link.embed else "the link is not followed or checked")
    return f"Obsidian {what} {quoted(link.raw)} is plain text to kbtools ({effect})"


def fix_message(link: Wikilink, new: str | None, note: str = "") -> str:
    """The finding of `link` whose fix writes `new` (None: nothing can be written); `note`:
    what it says first of the file found (`case_note`)."""
    text = TEXT_INSTEAD if link.embed and posixpath.splitext(link.target)[1].lower() in (
        "", *NOTE_TYPES) else ""
    if new is None:
        return (f"{describe(link)}{note}; `kb check --fix` leaves it as it is: write a "
                f"standard link by hand{text} ({SETTINGS})")
    return f"{describe(link)}{note}; `kb check --fix` writes {quoted(new)}{text} ({SETTINGS})"


def case_note(link: Wikilink, file_rel: str, doc_rel: str) -> str:
    """What the finding of `link`, resolved to `file_rel`, says when its target names the
    file only in another letter case or Unicode form (`names_differing`), as Obsidian finds
    it and a case-sensitive file system, Linux or GitHub does not; "" when it names the
    file as it is."""
    differing = names_differing(link, file_rel, doc_rel)
    if differing is None:
        return ""
    shown = posixpath.relpath(file_rel, posixpath.dirname(doc_rel) or ".")
    return (f"; {quoted(link.target)} differs {difference(*differing)} from the file it "
            f"resolves to, {quoted(shown)}, which Obsidian finds (Linux and GitHub compare "
            "links byte for byte)")


def names_differing(link: Wikilink, file_rel: str, doc_rel: str) -> tuple[str, str] | None:
    """When `link`'s target names `file_rel` (which `candidates` found for it) only in
    another letter case or Unicode form: the target's path as it writes it (a note's `.md`
    implied) and the same part of the file's path as on disk; None when the target names
    it exactly (or is this document, or does not name it)."""
    if not link.target:
        return None
    relative = relative_names(link, doc_rel)
    if relative is not None:
        if file_rel in relative:
            return None
        return next(((n, file_rel) for n in relative if disk_key(n) == disk_key(file_rel)),
                    None)
    for name in _variants(posixpath.normpath(link.target.strip("/"))):
        if ("/" + file_rel).endswith("/" + name):
            return None
        if ("/" + disk_key(file_rel)).endswith("/" + disk_key(name)):
            return name, "/".join(file_rel.split("/")[-(name.count("/") + 1):])
    return None


def names_file(link: Wikilink, file_rel: str, doc_rel: str) -> bool:
    """Does `link`'s target name `file_rel` by its path or name (as `candidates` finds it,
    in any letter case or Unicode form), not by an alias of the note
    (`kbtools.check.aliases`)?"""
    if not link.target:
        return True  # this document
    relative = relative_names(link, doc_rel)
    names = relative if relative is not None else \
        _variants(posixpath.normpath(link.target.strip("/")))
    return any(("/" + disk_key(file_rel)).endswith("/" + disk_key(n)) for n in names)


def difference(written: str, other: str) -> str:
    """How `written` differs from `other`, a path of the same `disk_key`."""
    if unicodedata.normalize("NFC", written) == unicodedata.normalize("NFC", other):
        return "in Unicode form"
    if written.lower() == other.lower():
        return "in letter case"
    return "in letter case and Unicode form"


def quoted(text: str) -> str:
    """`text` between quotes as written (a table cell's `\\|` stays one backslash; `repr`
    doubled it)."""
    return f"'{text}'"


def _error(message: str) -> LinkProblem:
    return LinkProblem(CODE, "error", message)


def _variants(path: str) -> list[str]:
    """The file names `path` may mean, in Obsidian's order: a note's `.md` is implied."""
    if path.lower().endswith(NOTE_TYPES):
        return [path]
    if posixpath.splitext(posixpath.basename(path))[1]:
        return [path, path + ".md"]  # `图.png`, but also `v1.2 release` -> `v1.2 release.md`
    return [path + ".md", path]


def candidates(link: Wikilink, doc_rel: str, fs: FsCache, trees: Sequence[str]) -> list[str]:
    """The root-relative files `link` may name (sorted; one: resolved)."""
    if not link.target:
        return [doc_rel]
    relative = relative_names(link, doc_rel)
    if relative is not None:
        for name in relative:
            res = fs.resolve(name)
            if res.exists and not res.is_dir:
                return [res.rel]
        return []
    return matching(link, doc_rel, trees, lambda key: [
        path for tree in trees for path in fs.files_named(tree).get(key, ())])


def relative_names(link: Wikilink, doc_rel: str) -> list[str] | None:
    """The root-relative files a target in Obsidian's "relative path" format (`./`, `../`)
    may name, in order (none outside the root); None: not in that format."""
    if not link.target.startswith(("./", "../")):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc_rel), link.target))
    if joined.startswith("../") or joined in ("..", "."):
        return []
    return _variants(joined)


def matching(link: Wikilink, doc_rel: str, trees: Sequence[str],
             named: Callable[[str], Iterable[str]]) -> list[str]:
    """The files `link` (a name or a path, not `./`-relative) may name among those `named`
    gives by file name (`disk_key`), as `candidates` chooses them (sorted; one: resolved)."""
    doc_dir = posixpath.dirname(doc_rel)
    for name in _variants(posixpath.normpath(link.target.strip("/"))):
        lower = "/" + disk_key(name)  # Obsidian on a Mac finds `café` decomposed too
        pool = sorted({path for path in named(posixpath.basename(lower))
                       if ("/" + disk_key(path)).endswith(lower)})
        pool = [p for p in pool if display_path(p) == p]  # a name not UTF-8 cannot be linked
        same_case = [p for p in pool if ("/" + p).endswith("/" + name)]
        pool = same_case or pool
        if len(pool) > 1 and "/" in name:  # a path: the one it names from a known folder
            meant = {disk_key(posixpath.normpath(posixpath.join(base, name)))
                     for base in ("", doc_dir, *trees)}
            pool = [p for p in pool if disk_key(p) in meant] or pool
        if pool:
            return pool
    return []


def standard_link(link: Wikilink, file_rel: str, doc_rel: str) -> str:
    """The standard Markdown link or image for `link` naming `file_rel`, from `doc_rel`."""
    ext = posixpath.splitext(file_rel)[1].lower()
    if file_rel == doc_rel and link.heading.rsplit("#", 1)[-1]:
        dest = ""
    else:
        dest = written_path(posixpath.relpath(file_rel, posixpath.dirname(doc_rel) or "."))
    if link.embed and ext in EMBED_IMAGES:
        # no label: the picture's name as the author wrote it (`![[résumé.png]]` typed
        # composed, the file a Mac named decomposed: the alt text is what they typed)
        alt = image_alt(link.label) or posixpath.splitext(posixpath.basename(
            link.target.rstrip("/") or file_rel))[0]
        width, height = image_size(link.label)
        if width:  # Markdown has no size: an `<img>` tag, as Typora writes a resized picture
            size = f' width="{width}"' + (f' height="{height}"' if height else "")
            return f'<img src="{escape(dest)}" alt="{escape(alt)}"{size}>'
        return f"![{_alt_text(alt)}]({dest})"
    slug = "" if link.embed and ext in EMBED_IMAGES else heading_slug(link, file_rel)
    shown = " > ".join(p for p in (link.target, *link.heading.split("#")) if p)
    return f"[{_text(link.label or shown)}]({dest}{'#' + slug if slug else ''})"


def heading_slug(link: Wikilink, file_rel: str) -> str:
    """The anchor the link written for `link` (naming `file_rel`) ends with ("" = none)."""
    heading = link.heading.rsplit("#", 1)[-1]
    if not heading or posixpath.splitext(file_rel)[1].lower() not in NOTE_TYPES:
        return ""
    return slugify(heading_title(heading))


def image_alt(label: str) -> str:
    """An embed's label without its size (`alt|300`, `300x200`: Obsidian's width)."""
    alt, _, size = label.rpartition("|")
    return alt.strip() if _size_of(size) else label


def image_size(label: str) -> tuple[str, str]:
    """The (width, height) an embed's label ends with (`alt|300`: ("300", ""), `300x200`:
    ("300", "200"); none: ("", ""))."""
    return _size_of(label.rpartition("|")[2]) or ("", "")


def _size_of(text: str) -> tuple[str, str] | None:
    width, x, height = text.strip().partition("x")
    if width.isascii() and width.isdigit() and (not x or
                                                 (height.isascii() and height.isdigit())):
        return width, height
    return None


def _text(text: str) -> str:
    """Link text as written: brackets, backslashes and pipes (a table cell's) escaped."""
    return "".join("\\" + ch if ch in "[]\\|" else ch for ch in text)


# what a wikilink's target cannot hold (Obsidian refuses these in a file's name)
NOT_IN_TARGETS = frozenset("[]|#^\n")


def written_target(link: Wikilink, file_rel: str, doc_rel: str,
                   names_only: Callable[[str], bool]) -> str | None:
    """The target a wikilink written as `link` is would name `file_rel` by, as Obsidian
    writes one: a note without `.md` unless `link` writes it; in the relative format when
    `link` is, else the shortest ending of the file's path that `names_only` the file (a
    bare name when no other file has it). None: no wikilink target names it."""
    shown = file_rel
    if file_rel.lower().endswith(NOTE_TYPES) and not link.target.lower().endswith(NOTE_TYPES):
        shown = posixpath.splitext(file_rel)[0]
    if relative_names(link, doc_rel) is not None:
        rel = posixpath.relpath(shown, posixpath.dirname(doc_rel) or ".")
        forms = [rel if rel.startswith("../") else "./" + rel]
    else:
        parts = shown.split("/")
        forms = ["/".join(parts[-n:]) for n in range(1, len(parts) + 1)]
    for form in forms:
        if not NOT_IN_TARGETS.intersection(form) and names_only(form):
            return form
    return None


def with_target(link: Wikilink, target: str) -> str:
    """`link` as written with its target replaced by `target`: its heading, label and the
    spaces around its target kept as written (a table cell's `\\|` too)."""
    start = 3 if link.embed else 2
    inner = link.raw[start:-2]
    bar = "|" if "|" in inner else "｜|"  # the separators `parse_wikilink` reads
    hash_ = "#" if "#" in inner.split(bar[0], 1)[0] else "＃#"
    cut = next((i for i, ch in enumerate(inner) if ch in bar + hash_), len(inner))
    if inner[cut:cut + 1] == "|" and inner[cut - 1:cut] == "\\":
        cut -= 1
    segment = inner[:cut]
    lead, trail = len(segment) - len(segment.lstrip()), len(segment.rstrip())
    return link.raw[:start] + segment[:lead] + target + segment[trail:] + inner[cut:] + "]]"


def _alt_text(text: str) -> str:
    """An image's alternative text as written (`_text`), a `<` escaped too: the alt text is
    text, where Markdown would read `<a>` as a tag and drop it."""
    return _text(text).replace("<", "\\<")
