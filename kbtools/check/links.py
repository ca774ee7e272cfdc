"""Path rules for links and images: relative, inside the repo, existing, exact case; the
edits `kb check --fix` writes for them.

The files on disk are looked up through `check.fscache.FsCache` (cached directory
listings, never the filesystem's own case- and normalisation-insensitive lookup).
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from kbtools.check.fscache import FsCache, Resolved, compatible_file, nfc
from kbtools.check.names import collision_message, disk_key, windows_problem
from kbtools.check.submodules import unchecked_module
from kbtools.markdown.frontend import Ref
from kbtools.render.images import IMAGE_TYPES

SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")
REMOTE_SCHEMES = {"http", "https", "ftp", "ftps"}
# a file on the author's disk as a URL: `file:///C:/…`, and Obsidian's `app://local/C:/…`
# (`app://<id>/…`), which its reading view gives a picture copied as HTML
LOCAL_URL = re.compile(r"^(?:file:(?://[^/]*)?|app://[^/]*)", re.I)
TYPORA_ROOT = "typora-root-url"  # Typora's folder for paths starting with `/` (front matter)
ASKED = "; did you mean "  # a suggestion's finding: `{said}{new!r}?`


@dataclass(frozen=True)
class Edit:
    """Replace `old` (written at line/col) by `new` — a mechanical --fix."""

    line: int
    col: int
    old: str  # "": the destination was not located as written; what `--fix` cannot write
    # (`\n` between lines: an old text over several, `kbtools.check.mend.misplaced_edit`'s)
    new: str
    # the document and the `#anchor` (as written, without its `#`) ending `new` (a
    # wikilink's: before its closing `)`), which `kb check --fix` checks names a heading
    # before writing (`kbtools.check.anchors.settle`); "" = none
    doc: str = ""
    fragment: str = ""
    wikilink: bool = False  # an Obsidian wikilink's fix (its finding is made with anchors)
    # a path fix whose finding names what it writes: the finding's code and its message up
    # to that (`{said}{new!r}`); with a `fragment`, made with the anchors (what `--fix`
    # writes then depends on the headings of `doc`: `kbtools.check.anchors`), not cached;
    # `link-anchor` with no `said`: the anchor alone rewritten (`anchors.anchor_edit`)
    code: str = ""
    said: str = ""
    # a suggestion `--fix` never writes (a `path-missing` "did you mean"), here only so that
    # its finding is made with the anchors: it names the heading `--fix` would link to
    hint: bool = False

    @property
    def told_with_anchors(self) -> bool:
        """Is the finding of this edit made once headings are known, not with its document?"""
        return bool(self.fragment) and (self.wikilink or bool(self.said))


@dataclass(frozen=True)
class Missing:
    """A link whose target no file on disk is (`path-missing`), which a rename in Git
    history may explain (`kbtools.check.renames`, run once per check over all of them)."""

    line: int
    col: int
    raw: str  # the destination as written (`Edit.old`; "": not located as written)
    path: str  # the target, root-relative (a wikilink's: its target as written)
    suffix: str  # its `?query` and `#fragment` as written, which a rewritten path keeps
    said: str  # what the finding says before any suggestion
    # an Obsidian wikilink (`raw`: the whole `[[…]]`), whose target is a name Obsidian
    # looks up (`kbtools.check.wikilinks.candidates`), not a path (its finding: link-wikilink)
    wikilink: bool = False


@dataclass(frozen=True)
class LinkProblem:
    code: str
    level: str
    message: str
    edit: Edit | None = None
    missing: Missing | None = None
    # a wikilink's one target when no note (a picture, a PDF), root-relative: the release
    # ships it as it ships the file of the standard link `kb check --fix` writes
    file: str = ""


@dataclass(frozen=True)
class AnchorTarget:
    """A link whose file exists and whose #fragment must match a heading there."""

    doc: str  # target rel path
    fragment: str
    line: int
    col: int


def _split(target: str) -> tuple[str, str]:
    path, _, fragment = target.partition("#")
    path = path.partition("?")[0]
    return path, fragment


def _split_ref(ref: Ref, target: str) -> tuple[str, str]:
    """The path and fragment of `ref`'s destination `target` (decoded): split where it is
    written, before decoding, when it is written encoded, so that `%23` and `%3F` are a
    file name's `#` and `?` (as `kb check --fix` writes them, and as the build reads them),
    not a fragment's or a query's start."""
    raw = ref.raw.strip()
    if "%" in raw and unquote(raw).strip() == target:
        path, fragment = _split(raw)
        return unquote(path), unquote(fragment)
    return _split(target)


def _suffix(ref: Ref, target: str) -> str:
    """The destination's `?query` and `#fragment` as written (`?raw`, `#%E6%A0%87`): what a
    suggested or rewritten path keeps. Read where `_split_ref` splits: in the text as
    written when it decodes to `target` (a `%3F` there is a file name's), else in `target`."""
    raw = ref.raw.strip()
    written = raw if raw and unquote(raw).strip() == target else target
    cut = min((at for at in (written.find("?"), written.find("#")) if at >= 0),
              default=len(written))
    return written[cut:]


def _rel_to(target_rel: str, doc_dir: str) -> str:
    return posixpath.relpath(target_rel or ".", doc_dir or ".")


# characters a link destination cannot hold as written, or would read as something else
ENCODED_IN_PATHS = frozenset(" <>#?%\\\x7f") | frozenset(map(chr, range(0x20)))


def written_path(path: str) -> str:
    """`path` as a link destination `--fix` writes: a space, `<`, `>`, `#`, `?`, `%`, a
    backslash, control characters and parentheses that do not pair percent-encoded (what the
    check and the build decode again); every other character, letters of any script
    included, as written (`../../assets/images/小麦%20病害.png`)."""
    depth = 0
    for ch in path:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    parens = depth != 0
    return "".join(quote(ch, safe="") if ch in ENCODED_IN_PATHS or (parens and ch in "()")
                   else ch for ch in path)


def check_ref(ref: Ref, doc_rel: str, fs: FsCache, typora_root: str = ""
              ) -> tuple[list[LinkProblem], AnchorTarget | None]:
    """Problems with one link/image target, plus the anchor to verify (if any); an edit
    rewriting the path of a link with an anchor to verify names that anchor's document
    (`Edit.doc`, `Edit.fragment`), so that `--fix` never keeps an anchor naming no heading.
    `typora_root`: the document's `typora-root-url` (`typora_root`), against which Typora
    reads a path starting with `/`: such a path is still refused, with the relative path of
    the file Typora shows as its fix."""
    problems, anchor = _check_target(ref, doc_rel, fs, typora_root)
    if anchor is None:
        return problems, None
    return [LinkProblem(p.code, p.level, p.message, anchored(p.edit, anchor.doc))
            if p.edit is not None else p for p in problems], anchor


def anchored(edit: Edit, doc: str) -> Edit:
    """`edit` (a destination rewritten, `#anchor` kept as written) naming its anchor."""
    _, hash_mark, fragment = edit.new.partition("#")  # a path's own `#` is written `%23`
    return dataclasses.replace(edit, doc=doc, fragment=fragment) if hash_mark else edit


def typora_root(meta: Mapping[str, Any]) -> str:
    """The `typora-root-url` of a document's front matter ("" when none): the folder Typora
    reads a link's path starting with `/` from (relative to the document, or absolute)."""
    value = meta.get(TYPORA_ROOT)
    return value.strip() if isinstance(value, str) else ""


def _check_target(ref: Ref, doc_rel: str, fs: FsCache, typora: str = ""
                  ) -> tuple[list[LinkProblem], AnchorTarget | None]:
    # Markdown escapes eat backslashes before punctuation (`..\\..` parses as `...`): judge
    # a destination written with backslashes by its source text.
    target = (unquote(ref.raw) if "\\" in ref.raw else ref.target).strip()
    doc_dir = posixpath.dirname(doc_rel)
    if not target:
        return [LinkProblem("link-empty", "warning", EMPTY[ref.kind])], None
    if target.startswith("#"):
        return [], AnchorTarget(doc_rel, target[1:], ref.line, ref.col)
    if target.startswith("//"):
        return _remote(ref, target), None
    if DRIVE.match(target):
        return [LinkProblem("path-absolute", "error", f"absolute Windows path {target!r}: "
                            f"{OUTSIDE}{_copied(target, doc_dir, fs)}")], None
    scheme = SCHEME.match(target)
    if scheme:
        name = scheme.group(1).lower()
        if name in ("file", "app"):
            path, fragment = _split(target)
            return _absolute(ref, target, unquote(LOCAL_URL.sub("", path)), fragment, doc_dir,
                             fs)
        if name in REMOTE_SCHEMES:
            return _remote(ref, target), None
        return [], None  # mailto:, tel:, data: ... not ours to judge
    problems: list[LinkProblem] = []
    path, fragment = _split_ref(ref, target)
    fixed_path = path
    if "\\" in path:
        fixed_path = path.replace("\\", "/")
        message = f"backslashes in {target!r}: use '/'"
        if fixed_path.startswith("/"):  # \\server\share or \abs\path: absolute as well
            more, anchor = _absolute(ref, target, fixed_path, fragment, doc_dir, fs, typora)
            return [LinkProblem("path-backslash", "error", message), *more], anchor
        problems.append(LinkProblem("path-backslash", "error", message,
                                    _edit(ref, target, fixed_path, fragment)))
    if fixed_path.startswith("/"):
        return _absolute(ref, target, fixed_path, fragment, doc_dir, fs, typora,
                         rooted=fixed_path == path)
    joined = posixpath.normpath(posixpath.join(doc_dir, fixed_path)) if fixed_path else doc_rel
    if joined == ".":
        joined = ""
    if joined == ".." or joined.startswith("../"):
        problems.append(LinkProblem("path-escapes-repo", "error",
                                    f"{target!r} points outside the knowledge base (the "
                                    "folder holding kb.toml, whose files a release holds; "
                                    "link other files of the repository by URL)"))
        return problems, None
    more, anchor = _existing(ref, target, joined, fragment, doc_dir, fs, problems)
    return problems + more, anchor


def image_file(ref: Ref, doc_rel: str, fs: FsCache) -> str | None:
    """The root-relative path of the existing file inside the repository that the image
    `ref` of `doc_rel` shows (or the link names, when of an image type: the release ships
    it), written as a relative path in its exact case; None for any other image
    (`check_ref` reports those) and link."""
    target = ref.target.strip()
    if "\\" in ref.raw or "\\" in target or SCHEME.match(target) or target.startswith(("/", "#")):
        return None
    path = _split_ref(ref, target)[0]
    if ref.kind != "image" and posixpath.splitext(path)[1].lower() not in IMAGE_TYPES:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc_rel), path))
    if not path or joined == ".." or joined.startswith("../"):
        return None
    res = fs.resolve(joined)
    if not res.exists or res.is_dir or not res.case_ok or not fs.stays_inside(res.rel):
        return None
    return res.rel


def is_picture(rel: str) -> bool:
    """Whether the file `rel` is shown as a picture (`image_file`), by its extension."""
    return posixpath.splitext(rel)[1].lower() in IMAGE_TYPES


def linked_file(ref: Ref, doc_rel: str, fs: FsCache) -> str | None:
    """The root-relative path of the existing file inside the repository that the link `ref`
    of `doc_rel` names when it is neither a document (Markdown) nor a picture (`image_file`):
    a PDF manual or a spreadsheet the release may leave out; None for anything else."""
    target = ref.target.strip()
    if ref.kind == "image" or "\\" in ref.raw or "\\" in target or SCHEME.match(target) \
            or target.startswith(("/", "#")):
        return None
    path = _split_ref(ref, target)[0]
    if not path or path.lower().endswith((".md", ".markdown")) \
            or posixpath.splitext(path)[1].lower() in IMAGE_TYPES:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc_rel), path))
    if joined == ".." or joined.startswith("../"):
        return None
    res = fs.resolve(joined)
    if not res.exists or res.is_dir or not res.case_ok or not fs.stays_inside(res.rel):
        return None
    return res.rel


def _edit(ref: Ref, target: str, new_path: str, fragment: str) -> Edit:
    """The edit writing `new_path` for the destination, its query and fragment kept as
    written (`fragment`, decoded, is what `_split` found: no query). A destination not
    located as written (a character reference, an HTML attribute: `Ref.raw` "") gets an
    edit `--fix` cannot write (`Edit.old` ""): it says what to write by hand instead."""
    return Edit(ref.line, ref.col, ref.raw, written_path(new_path) + _suffix(ref, target))


def _no_name(target: str) -> str:
    """What a missing target of no letter or digit adds (`[M + K](+)`, `[GHS-R](-/-)`:
    text in brackets and parentheses, which Markdown reads as a link): how to keep it
    text; "" for another."""
    if any(ch.isalnum() for ch in target):
        return ""
    return (" (Markdown reads text in brackets followed by text in parentheses as a link: "
            "if it is text, write its '[' as '\\[')")


def _existing(ref: Ref, target: str, joined: str, fragment: str, doc_dir: str, fs: FsCache,
              earlier: list[LinkProblem]) -> tuple[list[LinkProblem], AnchorTarget | None]:
    res = fs.resolve(joined)
    if not res.exists:
        if (fs.tracked is not None or fs.ignored(joined)) \
                and os.path.lexists(os.path.join(fs.root, joined)):
            return [LinkProblem("path-missing", "error",
                                f"{target!r} is not in the commit ({joined} "
                                f"{fs.not_staged(joined)})")], None
        same = compatible_file(joined, fs)
        wide = None if same else _wide_anchor(ref, target, joined, fragment, fs)
        if wide is not None:
            return _wide_anchored(ref, target, joined, doc_dir, fs, *wide)
        near = same or fs.closest(joined)
        said = f"{target!r} does not exist ({joined}){unchecked_module(fs, joined)}" \
            + _no_name(target)
        # (a backslash fix of the same link rewrites it already: no second edit of it)
        missing = None if earlier and earlier[-1].edit else \
            Missing(ref.line, ref.col, ref.raw, joined, _suffix(ref, target), said)
        if near is None:
            return [LinkProblem("path-missing", "error", said, missing=missing)], None
        said += ASKED
        # what is suggested is what `--fix` writes: with an anchor, told once the headings
        # of `near` are known (`anchors.settle`: the closest heading, or none)
        suggested = dataclasses.replace(_edit(ref, target, _rel_to(near, doc_dir), fragment),
                                        code="path-missing", said=said)
        if "#" in suggested.new and near.lower().endswith((".md", ".markdown")):
            suggested = dataclasses.replace(anchored(suggested, near), old="", hint=True)
        message = f"{said}{suggested.new!r}?"
        if same is None:
            return [LinkProblem("path-missing", "error", message,
                                suggested if suggested.hint else None, missing)], None
        # the same name but for full-width or compatibility forms: `--fix` writes the file's
        edit: Edit | None = _edit(ref, target, _rel_to(same, doc_dir), fragment)
        if edit and earlier and earlier[-1].edit:
            earlier[-1] = dataclasses.replace(earlier[-1], edit=edit)
            edit = None
        elif edit and suggested.hint:  # the finding of the edit itself, made with the anchors
            edit = dataclasses.replace(edit, code="path-missing", said=said)
        if edit is None and suggested.hint:
            edit = suggested
        return [LinkProblem("path-missing", "error", message, edit)], \
            _anchor(ref, fs.resolve(same), fragment)
    if not fs.stays_inside(res.rel):
        return [LinkProblem("path-symlink-escape", "error",
                            f"{target!r} is a symlink leading {fs.leads_where(res.rel)}")], None
    problems = []
    new_path = _rel_to(res.rel, doc_dir)
    # one edit writes the file's name as on disk (its case and Unicode form), with '/': the
    # backslash fix's, when there is one, so that one `--fix` leaves a link `kb check` accepts
    edit = _edit(ref, target, new_path, fragment) if not (res.form_ok and res.case_ok) \
        else None
    if edit and earlier and earlier[-1].edit:
        earlier[-1] = dataclasses.replace(earlier[-1], edit=edit)
        edit = None
    if not res.form_ok and res.case_ok:
        problems.append(_unicode_form(target, res, new_path, edit, bool(ref.raw)))
    if not res.case_ok:
        problems.append(LinkProblem("path-case", "error",
                                    f"{target!r} differs in case from the file on disk: {new_path!r}",
                                    edit))
    if not res.rel.endswith(".md"):  # a document's own name is checked as a document's
        problems.extend(_unportable(target, res.rel, fs))
    return problems, _anchor(ref, res, fragment)


def _unicode_form(target: str, res: Resolved, new_path: str, edit: Edit | None,
                  located: bool) -> LinkProblem:
    """A target found only by comparing names in one Unicode form: Linux does not find it.
    `--fix` writes the link as the file is named (`edit`) when it is `located` as written;
    a decomposed name (macOS) is better renamed."""
    if nfc(res.rel) == res.rel:
        return LinkProblem("path-unicode", "error",
                           f"{target!r} is written in decomposed Unicode (NFD) and the file "
                           f"{res.rel} in composed (NFC): Linux compares names byte for byte "
                           f"and does not find it; link {new_path!r}", edit)
    return LinkProblem("path-unicode", "error",
                       f"{target!r} does not exist as written: {res.rel} is named in "
                       "decomposed Unicode (NFD, as macOS writes names), which Linux does not "
                       "match with a composed (NFC) link; rename the file to its composed "
                       "spelling (git mv), or " + ("`kb check --fix` writes the link as it is named"
                                                   if located else f"link {new_path!r}"), edit)


def _unportable(target: str, rel: str, fs: FsCache) -> list[LinkProblem]:
    """A target Windows cannot check out, or one that is one file with another there."""
    out = []
    why = windows_problem(rel)
    if why is not None:
        out.append(LinkProblem("path-windows", "error",
                               f"{target!r}: {why}: Git for Windows cannot check the "
                               "repository out (invalid path); rename the file (git mv)"))
    twins = fs.twins(rel)
    if twins:
        out.append(LinkProblem("path-collision", "error",
                               f"{target!r}: {collision_message(rel, twins)}"))
    return out


# a Chinese input method's `#` and `?`: `pump.md＃安装步骤` and `pump.md？v=2` name no file,
# but the anchor or the query string of one
WIDE_HASHES = "＃﹟"
WIDE_MARKS = {**dict.fromkeys(WIDE_HASHES, "#"), "？": "?", "﹖": "?"}


def _narrowed(text: str) -> str:
    """`text`, starting with a full-width `＃` or `？` (`WIDE_MARKS`), with it written as the
    half-width mark it stands for, and after a `？` the first `＃` too when no `#` is written
    (`？a=1＃h`: the query string and the anchor)."""
    mark = WIDE_MARKS[text[0]]
    rest = text[1:]
    if mark == "?" and "#" not in rest:
        cut = min((at for at in map(rest.find, WIDE_HASHES) if at >= 0), default=-1)
        rest = rest if cut < 0 else rest[:cut] + "#" + rest[cut + 1:]
    return mark + rest


def _wide_anchor(ref: Ref, target: str, joined: str, fragment: str, fs: FsCache
                 ) -> tuple[str, str, str, str] | None:
    """(the file, its anchor decoded, what follows it as written, the full-width mark) that a
    missing `joined` means when a full-width `＃` or `？` stands for the `#` before the anchor
    (`pump.md＃安装步骤`) or the `?` before the query string (`pump.md？v=2`,
    `x.md？a=1#h`), the file named before it existing (but perhaps for case or compatibility
    forms); None else (a `＃` after which a `#` is written is no anchor's)."""
    cut = min((at for at in map(joined.find, WIDE_MARKS) if at >= 0), default=-1)
    if cut <= 0 or fragment and WIDE_MARKS[joined[cut]] == "#":
        return None
    res = fs.resolve(joined[:cut])
    file = res.rel if res.exists and not res.is_dir and res.case_ok and res.form_ok \
        else compatible_file(joined[:cut], fs)
    raw = ref.raw.strip()
    written = raw if raw and unquote(raw).strip() == target else target
    marks = [at for at in map(written.find, WIDE_MARKS) if at >= 0]
    if file is None or not marks:
        return None
    anchor = _narrowed(joined[cut:]).partition("#")[2] or fragment
    return file, anchor, _narrowed(written[min(marks):]), joined[cut]


def _wide_anchored(ref: Ref, target: str, joined: str, doc_dir: str, fs: FsCache,
                   file: str, fragment: str, suffix: str, mark: str
                   ) -> tuple[list[LinkProblem], AnchorTarget | None]:
    """The finding of a link whose anchor or query string follows a full-width `＃` or `？`
    (`_wide_anchor`): the fix writes the `#` or `?` it stands for, as to the file's anchor
    written with `#`."""
    starts = "anchor" if WIDE_MARKS[mark] == "#" else "query string"
    said = f"{target!r} does not exist ({joined}): its full-width '{mark}' starts no " \
        f"{starts}{ASKED}"
    edit = Edit(ref.line, ref.col, ref.raw, f"{written_path(_rel_to(file, doc_dir))}{suffix}",
                code="path-missing", said=said)
    return [LinkProblem("path-missing", "error", f"{said}{edit.new!r}?", edit)], \
        _anchor(ref, fs.resolve(file), fragment)


def _anchor(ref: Ref, res: Resolved, fragment: str) -> AnchorTarget | None:
    """The `#fragment` of a link to an existing Markdown document, to match its headings."""
    if fragment and not res.is_dir and res.rel.lower().endswith((".md", ".markdown")):
        return AnchorTarget(res.rel, fragment, ref.line, ref.col)
    return None


# what a link or image with an empty target (`[a]()`, `![a]()`) does, and what to write
EMPTY = {"link": "empty link target: it opens nothing (GitHub reloads the page): write the "
                 "file or URL it should open, or the text alone",
         "image": "empty image target: no picture shows: write the picture's path"}
# what to do of an absolute path to a file outside the repository (an editor's paste: Typora
# links a picture where it lies on the author's disk)
OUTSIDE = ("a file outside the repository (devices and other authors lack it): copy it into "
           "the repository (a picture into the assets folder) and link it by a path relative "
           "to the document")


def _typora_file(base: str, typora: str, doc_dir: str, fs: FsCache) -> str | None:
    """The repo-relative file Typora shows for the path `base` (starting with `/`) under the
    document's `typora-root-url` `typora`, when that folder is in the repository: written
    relative to the document (`../assets`, `..\\assets`), or absolute on this disk, or on the
    author's (`C:\\Users\\x\\kb\\assets`, `file:///C:/…`, `/Users/x/kb/assets`), read so
    by the folders it ends with that the repository holds (`_authors_folder`)."""
    folder = typora.replace("\\", "/")
    if folder[:5].lower() == "file:":  # `file:///C:/kb/assets`, `file:///home/x/kb/assets`
        folder = unquote(folder[5:]).lstrip("/")
        folder = folder if DRIVE.match(folder) else "/" + folder
    disk = DRIVE.match(folder) is not None
    if not folder or (SCHEME.match(folder) and not disk):
        return None
    if disk:
        return _authors_folder(folder[2:], base, fs)
    if folder.startswith("/"):
        real, root = fs.realpath(folder), fs.real_root
        if real != root and not real.startswith(root + os.sep):  # a folder of this disk
            return None if os.path.isdir(real) else _authors_folder(folder, base, fs)
        folder = Path(os.path.relpath(real, root)).as_posix()
    else:
        folder = posixpath.join(doc_dir, folder)
    return _inside_file(folder, base, fs)


def _inside_file(folder: str, base: str, fs: FsCache) -> str | None:
    """`base` under the repo-relative `folder`, when that file is in the repository."""
    joined = posixpath.normpath(posixpath.join(folder, base.lstrip("/")))
    if joined == ".." or joined.startswith("../") or joined == ".":
        return None
    return joined if fs.resolve(joined).exists else None


def _authors_folder(folder: str, base: str, fs: FsCache) -> str | None:
    """`base` under an absolute folder of the author's disk (`/Users/x/kb/assets`, a drive's
    `/Users/x/kb/assets`): the repository lay somewhere on that disk, so the folder is the
    longest of its trailing parts (`x/kb/assets`, `kb/assets`, `assets`, none: the
    repository's root) that is a folder of this repository holding the file."""
    parts = [p for p in posixpath.normpath("/" + folder).split("/") if p]
    for i in range(len(parts) + 1):
        found = _inside_file("/".join(parts[i:]), base, fs)
        if found is not None:
            return found
    return None


def _absolute(ref: Ref, target: str, base: str, fragment: str, doc_dir: str,
              fs: FsCache, typora: str = "", *, rooted: bool = False
              ) -> tuple[list[LinkProblem], AnchorTarget | None]:
    """An absolute path (`base`, without its `#fragment`): fixable, anchor kept, when it
    names an existing file inside the repo (read first against the document's
    `typora-root-url`, as Typora reads it); the anchor is then checked as a relative
    link's. `rooted`: written `/…` (no `file:`, no backslash), which GitHub reads from the
    repository's root: one naming no file there nor on this disk, in a folder at the
    repository's root (`/media/x.png`, `media/` there), is said to be missing there, not a
    file outside the repository."""
    inside = _typora_file(base, typora, doc_dir, fs) if typora and base else None
    by_typora = inside is not None
    root = fs.real_root
    real = fs.realpath(base) if base and not by_typora else ""
    if real and (real == root or real.startswith(root + os.sep)):
        inside = posixpath.normpath(Path(os.path.relpath(real, root)).as_posix())
    elif not by_typora and base.lstrip("/") and \
            fs.resolve(posixpath.normpath(base.lstrip("/"))).exists:
        inside = posixpath.normpath(base.lstrip("/"))  # repo-root-relative "/assets/x.png"
    if inside is not None:
        if inside == ".":
            inside = ""
        res = fs.resolve(inside)
        if res.exists:
            new_path = _rel_to(res.rel, doc_dir)
            said = f"absolute path {target!r}" + (
                f" (read from {TYPORA_ROOT} {typora!r}, as Typora shows it)"
                if by_typora else "") \
                + ": use "
            # not located as written, its edit is one `--fix` cannot write (`_edit`), whose
            # finding keeps to the anchor rules all the same
            edit = dataclasses.replace(_edit(ref, target, new_path, fragment),
                                       code="path-absolute", said=said)
            return [LinkProblem("path-absolute", "error", f"{said}{edit.new!r}", edit)], \
                _anchor(ref, res, fragment)
    meant = posixpath.normpath(base.lstrip("/"))
    if rooted and not by_typora and "/" in meant and not os.path.lexists(base) \
            and (top := fs.resolve(meant.split("/")[0])).exists and top.is_dir:
        return [LinkProblem("path-absolute", "error", f"absolute path {target!r}: no file "
                            f"{meant!r} in the repository (read from its root, as GitHub reads "
                            "a path starting with '/'), nor on this disk: link an existing "
                            "file by a path relative to the document"
                            f"{_copied(base, doc_dir, fs)}")], None
    return [LinkProblem("path-absolute", "error", f"absolute path {target!r}: {OUTSIDE}"
                        f"{_copied(base, doc_dir, fs)}")], None


def _copied(path: str, doc_dir: str, fs: FsCache) -> str:
    """What a finding of a file outside the repository adds when a file of its name is in the
    repository (a picture Typora linked where it lay on the author's disk, copied into the
    assets folder since): its path from the document, to link if it is that file; "" when
    there is none, or several (which is meant is the author's to say)."""
    name = re.split(r"[\\/]", path.rstrip("/\\"))[-1]
    same = fs.files_named("").get(disk_key(name), ()) if name else ()
    if len(same) != 1 or posixpath.basename(same[0]) != name:
        return ""
    return f" (the repository has {_rel_to(posixpath.normpath(same[0]), doc_dir)!r}: " \
        "link that if it is the same file)"


def _remote(ref: Ref, target: str) -> list[LinkProblem]:
    if ref.plays:  # `<video src="https://…">`, a framed YouTube page: as a remote picture
        return [LinkProblem("media-remote", "warning",
                            f"remote {target!r} played or framed in the page cannot load on "
                            "offline devices; copy the file into assets/ (a PDF ships), or "
                            "link it as [text](url)")]
    if ref.kind == "image":
        return [LinkProblem("image-remote", "warning",
                            f"remote image {target!r} cannot load on offline devices; "
                            "copy it into assets/")]
    return []
