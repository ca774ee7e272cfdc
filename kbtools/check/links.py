"""Path rules for links and images: relative, inside the repo, existing, exact case.

Case and Unicode form are checked by walking cached directory listings, never by asking
the filesystem (authors' laptops are case- and normalisation-insensitive, devices are not);
so is a target that is one file with another on those laptops (`check.names`).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import posixpath
import re
import shlex
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from kbtools.check.names import collision_message, disk_key, windows_problem
from kbtools.corpus import is_inside
from kbtools.markdown.frontend import Ref
from kbtools.render.images import IMAGE_TYPES

SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")
REMOTE_SCHEMES = {"http", "https", "ftp", "ftps"}


@dataclass(frozen=True)
class Edit:
    """Replace `old` (written at line/col) by `new` — a mechanical --fix."""

    line: int
    col: int
    old: str  # "": the destination was not located as written; what `--fix` cannot write
    new: str
    # the document and the `#anchor` (as written, without its `#`) ending `new` (a
    # wikilink's: before its closing `)`), which `kb check --fix` checks names a heading
    # before writing (`kbtools.check.anchors.settle`); "" = none
    doc: str = ""
    fragment: str = ""
    wikilink: bool = False  # an Obsidian wikilink's fix (its finding is made with anchors)
    # a path fix whose finding names what it writes: the finding's code and its message up
    # to that (`{said}{new!r}`); with a `fragment`, made with the anchors (what `--fix`
    # writes then depends on the headings of `doc`: `kbtools.check.anchors`), not cached
    code: str = ""
    said: str = ""

    @property
    def told_with_anchors(self) -> bool:
        """Is the finding of this edit made once headings are known, not with its document?"""
        return bool(self.fragment) and (self.wikilink or bool(self.said))


@dataclass(frozen=True)
class Resolved:
    rel: str  # real-case posix path relative to the root ("" = the root itself)
    case_ok: bool
    exists: bool
    is_dir: bool
    form_ok: bool = True  # False: a name matched only in another Unicode form (NFC/NFD)


def close_names(name: str, candidates: Iterable[str]) -> list[str]:
    """The candidate a misspelt `name` most likely means, as a list of one ([] when none):
    at least CLOSE_NAME alike by `difflib`, else, for a name of MIN_ONE_TYPO characters or
    more, one typo away (a character wrong, missing or extra, or two swapped), which in a
    short name leaves less alike than that: `病害防冶` for `病害防治` (0.75), `stpe` for
    `step`. The first such candidate by name on a tie."""
    ordered = sorted(candidates)
    near = difflib.get_close_matches(name, ordered, n=1, cutoff=CLOSE_NAME)
    if near or len(name) < MIN_ONE_TYPO:
        return near
    return [c for c in ordered if abs(len(c) - len(name)) <= 1 and _one_typo(name, c)][:1]


def _one_typo(a: str, b: str) -> bool:
    """Are `a` and `b` (lengths at most one apart) one typo apart, and not equal?"""
    if len(a) > len(b):
        a, b = b, a
    p = 0
    while p < len(a) and a[p] == b[p]:
        p += 1
    if len(a) < len(b):  # one character extra in `b`
        return a[p:] == b[p + 1:]
    if p == len(a):
        return False
    return a[p + 1:] == b[p + 1:] or (p + 1 < len(a) and a[p] == b[p + 1]
                                      and a[p + 1] == b[p] and a[p + 2:] == b[p + 2:])


def git_cwd(top: Path | None, cwd: Path) -> str | None:
    """`FsCache.git_cwd`: the real path of `cwd` when it lies in the Git work tree whose
    top is `top`, else None."""
    real_cwd = os.path.realpath(cwd)
    return real_cwd if top is not None and is_inside(real_cwd, os.path.realpath(top)) else None


CLOSE_NAME = 0.8  # how alike a name must be to be suggested for a missing one (difflib ratio)
MIN_ONE_TYPO = 3  # a name this long is suggested one typo away, however little alike


@dataclass
class FsCache:
    """Directory listings and resolution results, shared by all documents of one run."""

    root: Path
    real_root: str = ""
    listings: dict[str, tuple[frozenset[str], dict[str, list[str]]] | None] = field(
        default_factory=dict)
    inside: dict[str, bool] = field(default_factory=dict)
    reals: dict[str, str] = field(default_factory=dict)
    touched: list[str] | None = None  # set to a list: root-relative paths looked at go in
    # files under a folder (hidden folders and symlinked folders left out), by `disk_key`
    named: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # set (`kb check --staged`): the root-relative paths in the Git index and their folders;
    # a file or folder outside it is not there (untracked, or deleted from the index only)
    tracked: frozenset[str] | None = None
    untracked: str = ""  # said of a file on disk `tracked` lacks (default: `not_staged`)
    # where the user types git commands (the real path of kb's working folder, which
    # pre-commit sets to the Git root); None: outside the work tree, or the knowledge root
    git_cwd: str | None = None

    def __post_init__(self) -> None:
        self.real_root = os.path.realpath(self.root)

    def committed(self, rel: str) -> bool:
        """Whether the commit holds the root-relative `rel`: always without `tracked` or
        outside the root; below a tracked symlink (to a folder), judged where it leads."""
        if self.tracked is None or rel in self.tracked or rel.startswith("/"):
            return True
        parts = rel.split("/")
        return any("/".join(parts[:i]) in self.tracked
                   and os.path.islink(os.path.join(self.root, *parts[:i]))
                   for i in range(1, len(parts)))

    def not_staged(self, rel: str) -> str:
        """What to say of the root-relative `rel`, on disk but not in the Git index: the
        `git add` to run from where kb runs (pre-commit runs it at the Git root, which in a
        monorepo is above the knowledge base: `git add knowledge/a.md` would fail there)."""
        if self.untracked:
            return self.untracked
        if self.git_cwd is None:
            return f"is not staged: git -C {shlex.quote(str(self.root))} add {shlex.quote(rel)}"
        path = Path(os.path.relpath(os.path.join(self.real_root, rel), self.git_cwd)).as_posix()
        return "is not staged: git add " + ("it" if path == rel else shlex.quote(path))

    def listing(self, rel_dir: str) -> tuple[frozenset[str], dict[str, list[str]]] | None:
        if self.touched is not None:
            self.touched.append(rel_dir)
        if rel_dir not in self.listings:
            try:
                names = os.listdir(os.path.join(self.root, rel_dir))
            except OSError:
                self.listings[rel_dir] = None
            else:
                if self.tracked is not None:
                    names = [n for n in names if self.committed(posixpath.join(rel_dir, n))]
                lower: dict[str, list[str]] = {}  # by `disk_key`: names one file on macOS
                for name in names:
                    lower.setdefault(disk_key(name), []).append(name)
                self.listings[rel_dir] = (frozenset(names), lower)
        return self.listings[rel_dir]

    def resolve(self, rel: str) -> Resolved:
        """Walk `rel` (normalised, inside the root) component by component."""
        real: list[str] = []
        case_ok = form_ok = True
        for part in [p for p in rel.split("/") if p]:
            entry = self.listing("/".join(real))
            if entry is None:
                return Resolved("/".join(real + [part]), case_ok, False, False, form_ok)
            names, lower = entry
            if part in names:
                real.append(part)
                continue
            matches = lower.get(disk_key(part))
            if not matches:
                return Resolved("/".join(real + [part]), case_ok, False, False, form_ok)
            composed = [m for m in matches if nfc(m) == nfc(part)]
            if composed:
                form_ok = False
            else:
                case_ok = False
            real.append(sorted(composed or matches)[0])
        path = "/".join(real)
        if self.touched is not None:
            self.touched.append(path)
        return Resolved(path, case_ok, True, os.path.isdir(os.path.join(self.root, path)),
                        form_ok)

    def twins(self, rel: str) -> list[str]:
        """The other paths of the tree that are the existing `rel` on a macOS or Windows
        disk (names equal but for letter case or Unicode form), sorted."""
        found = [""]
        for part in [p for p in rel.split("/") if p]:
            step: list[str] = []
            for folder in found:
                entry = self.listing(folder)
                if entry is not None:
                    step.extend(posixpath.join(folder, n) for n in entry[1].get(disk_key(part), ()))
            found = step
        return sorted(p for p in found if p != rel)

    def files_named(self, rel_dir: str) -> dict[str, tuple[str, ...]]:
        """Every file under the folder `rel_dir` (root-relative; hidden and symlinked folders
        not entered), as root-relative real-case paths by file name as a macOS disk compares
        it (`disk_key`: lower case, composed Unicode)."""
        if self.touched is not None:
            self.touched.append(rel_dir)
        if rel_dir not in self.named:
            found: dict[str, list[str]] = {}
            for top, dirs, files in os.walk(os.path.join(self.root, rel_dir)):
                dirs[:] = [d for d in dirs if not d.startswith(".")
                           and not os.path.islink(os.path.join(top, d))]
                rel_top = Path(os.path.relpath(top, self.root)).as_posix()
                for name in files:
                    rel = posixpath.join(rel_top, name)
                    if self.committed(posixpath.normpath(rel)):
                        found.setdefault(disk_key(name), []).append(rel)
            self.named[rel_dir] = {k: tuple(sorted(v)) for k, v in found.items()}
        return self.named[rel_dir]

    def closest(self, rel: str) -> str | None:
        """The existing file a missing root-relative `rel` most likely means, for a "did you
        mean": each missing part replaced by the closest name of its folder (``pump-
        maintenance.md`` for ``pump_maintenance.md``, by `close_names`), else a file of that very name in another folder; None when neither."""
        parts = [p for p in rel.split("/") if p]
        real: list[str] = []
        for part in parts:
            entry = self.listing("/".join(real))
            if entry is None:
                break
            names, lower = entry
            near = ([part] if part in names else sorted(lower.get(disk_key(part), ()))
                    or close_names(part, names))
            if not near:
                break
            real.append(near[0])
        else:
            path = "/".join(real)
            if path != rel and os.path.isfile(os.path.join(self.root, path)):
                return path
        same = self.files_named("").get(disk_key(parts[-1]), ()) if parts else ()
        return posixpath.normpath(same[0]) if same else None

    def realpath(self, path: str) -> str:
        if path not in self.reals:
            self.reals[path] = os.path.realpath(path)
        return self.reals[path]

    def stays_inside(self, rel: str) -> bool:
        """False when symlinks take `rel` outside the repo root."""
        if self.touched is not None:
            self.touched.append(rel)
        if rel not in self.inside:
            real = os.path.realpath(os.path.join(self.root, rel))
            self.inside[rel] = real == self.real_root or real.startswith(self.real_root + os.sep)
        return self.inside[rel]


@dataclass(frozen=True)
class LinkProblem:
    code: str
    level: str
    message: str
    edit: Edit | None = None


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


def nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _compatible(path: str) -> str:  # full-width letters, compatibility forms: plain ones
    return unicodedata.normalize("NFKC", path).casefold()


def _compatible_file(rel: str, fs: FsCache) -> str | None:
    """The one existing file named `rel` but for compatibility forms and case (`Ｒeadme.md`)."""
    real: list[str] = []
    for part in [p for p in rel.split("/") if p]:
        entry = fs.listing("/".join(real))
        found = [n for n in entry[0] if _compatible(n) == _compatible(part)] if entry else []
        if len(found) != 1:
            return None
        real.append(found[0])
    path = "/".join(real)
    return path if os.path.isfile(os.path.join(fs.root, path)) else None


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


def check_ref(ref: Ref, doc_rel: str, fs: FsCache) -> tuple[list[LinkProblem], AnchorTarget | None]:
    """Problems with one link/image target, plus the anchor to verify (if any); an edit
    rewriting the path of a link with an anchor to verify names that anchor's document
    (`Edit.doc`, `Edit.fragment`), so that `--fix` never keeps an anchor naming no heading."""
    problems, anchor = _check_target(ref, doc_rel, fs)
    if anchor is None:
        return problems, None
    return [LinkProblem(p.code, p.level, p.message, _anchored(p.edit, anchor.doc))
            if p.edit is not None else p for p in problems], anchor


def _anchored(edit: Edit, doc: str) -> Edit:
    """`edit` (a destination rewritten, `#anchor` kept as written) naming its anchor."""
    _, hash_mark, fragment = edit.new.partition("#")  # a path's own `#` is written `%23`
    return dataclasses.replace(edit, doc=doc, fragment=fragment) if hash_mark else edit


def _check_target(ref: Ref, doc_rel: str, fs: FsCache) -> tuple[list[LinkProblem],
                                                                 AnchorTarget | None]:
    # Markdown escapes eat backslashes before punctuation (`..\\..` parses as `...`): judge
    # a destination written with backslashes by its source text.
    target = (unquote(ref.raw) if "\\" in ref.raw else ref.target).strip()
    doc_dir = posixpath.dirname(doc_rel)
    if not target:
        return [LinkProblem("link-empty", "warning", f"empty {ref.kind} target")], None
    if target.startswith("#"):
        return [], AnchorTarget(doc_rel, target[1:], ref.line, ref.col)
    if target.startswith("//"):
        return _remote(ref, target), None
    if DRIVE.match(target):
        return [LinkProblem("path-absolute", "error",
                            f"absolute Windows path {target!r}: {OUTSIDE}")], None
    scheme = SCHEME.match(target)
    if scheme:
        name = scheme.group(1).lower()
        if name == "file":
            path, fragment = _split(target)
            return _absolute(ref, target, unquote(re.sub(r"^file:(//[^/]*)?", "", path,
                                                         flags=re.I)), fragment, doc_dir, fs)
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
            more, anchor = _absolute(ref, target, fixed_path, fragment, doc_dir, fs)
            return [LinkProblem("path-backslash", "error", message), *more], anchor
        problems.append(LinkProblem("path-backslash", "error", message,
                                    _edit(ref, target, fixed_path, fragment)))
    if fixed_path.startswith("/"):
        return _absolute(ref, target, fixed_path, fragment, doc_dir, fs)
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


def _edit(ref: Ref, target: str, new_path: str, fragment: str) -> Edit | None:
    """The edit writing `new_path` for the destination, its query and fragment kept as
    written (`fragment`, decoded, is what `_split` found: no query)."""
    if not ref.raw:
        return None
    new = written_path(new_path) + _suffix(ref, target)
    return Edit(ref.line, ref.col, ref.raw, new)


def _existing(ref: Ref, target: str, joined: str, fragment: str, doc_dir: str, fs: FsCache,
              earlier: list[LinkProblem]) -> tuple[list[LinkProblem], AnchorTarget | None]:
    res = fs.resolve(joined)
    if not res.exists:
        if fs.tracked is not None and os.path.lexists(os.path.join(fs.root, joined)):
            return [LinkProblem("path-missing", "error",
                                f"{target!r} is not in the commit ({joined} "
                                f"{fs.not_staged(joined)})")], None
        same = _compatible_file(joined, fs)
        near = same or fs.closest(joined)
        hint = f"; did you mean {written_path(_rel_to(near, doc_dir)) + _suffix(ref, target)!r}?" \
            if near else ""
        if same is None:
            return [LinkProblem("path-missing", "error",
                                f"{target!r} does not exist ({joined}){hint}")], None
        # the same name but for full-width or compatibility forms: `--fix` writes the file's
        edit = _edit(ref, target, _rel_to(same, doc_dir), fragment)
        if edit and earlier and earlier[-1].edit:
            earlier[-1] = dataclasses.replace(earlier[-1], edit=edit)
            edit = None
        return [LinkProblem("path-missing", "error",
                            f"{target!r} does not exist ({joined}){hint}", edit)], \
            _anchor(ref, fs.resolve(same), fragment)
    if not fs.stays_inside(res.rel):
        return [LinkProblem("path-symlink-escape", "error",
                            f"{target!r} is a symlink leading outside the repository")], None
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
        problems.append(_unicode_form(target, res, new_path, edit))
    if not res.case_ok:
        problems.append(LinkProblem("path-case", "error",
                                    f"{target!r} differs in case from the file on disk: {new_path!r}",
                                    edit))
    if not res.rel.endswith(".md"):  # a document's own name is checked as a document's
        problems.extend(_unportable(target, res.rel, fs))
    return problems, _anchor(ref, res, fragment)


def _unicode_form(target: str, res: Resolved, new_path: str, edit: Edit | None) -> LinkProblem:
    """A target found only by comparing names in one Unicode form: Linux does not find it.
    `--fix` writes the link as the file is named (`edit`); a decomposed name (macOS) is
    better renamed."""
    if nfc(res.rel) == res.rel:
        return LinkProblem("path-unicode", "error",
                           f"{target!r} is written in decomposed Unicode (NFD) and the file "
                           f"{res.rel} in composed (NFC): Linux compares names byte for byte "
                           f"and does not find it; link {new_path!r}", edit)
    return LinkProblem("path-unicode", "error",
                       f"{target!r} does not exist as written: {res.rel} is named in "
                       "decomposed Unicode (NFD, as macOS writes names), which Linux does not "
                       "match with a composed (NFC) link; rename the file to its composed "
                       "spelling (git mv), or `kb check --fix` writes the link as it is named",
                       edit)


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


def _anchor(ref: Ref, res: Resolved, fragment: str) -> AnchorTarget | None:
    """The `#fragment` of a link to an existing Markdown document, to match its headings."""
    if fragment and not res.is_dir and res.rel.lower().endswith((".md", ".markdown")):
        return AnchorTarget(res.rel, fragment, ref.line, ref.col)
    return None


# what to do of an absolute path to a file outside the repository (an editor's paste: Typora
# links a picture where it lies on the author's disk)
OUTSIDE = ("a file outside the repository (devices and other authors lack it): copy it into "
           "the repository (a picture into the assets folder) and link it by a path relative "
           "to the document")


def _absolute(ref: Ref, target: str, base: str, fragment: str, doc_dir: str,
              fs: FsCache) -> tuple[list[LinkProblem], AnchorTarget | None]:
    """An absolute path (`base`, without its `#fragment`): fixable, anchor kept, when it
    names an existing file inside the repo; the anchor is then checked as a relative link's."""
    inside = None
    root = fs.real_root
    real = fs.realpath(base) if base else ""
    if real == root or real.startswith(root + os.sep):
        inside = posixpath.normpath(Path(os.path.relpath(real, root)).as_posix())
    elif base.lstrip("/") and fs.resolve(posixpath.normpath(base.lstrip("/"))).exists:
        inside = posixpath.normpath(base.lstrip("/"))  # repo-root-relative "/assets/x.png"
    if inside is not None:
        if inside == ".":
            inside = ""
        res = fs.resolve(inside)
        if res.exists:
            new_path = _rel_to(res.rel, doc_dir)
            said = f"absolute path {target!r}: use "
            # not located as written (a character reference, an HTML attribute): an edit
            # `--fix` cannot write (`Edit.old` ""), whose finding keeps to the anchor rules
            edit = _edit(ref, target, new_path, fragment) or Edit(
                ref.line, ref.col, "", written_path(new_path) + _suffix(ref, target))
            edit = dataclasses.replace(edit, code="path-absolute", said=said)
            return [LinkProblem("path-absolute", "error", f"{said}{edit.new!r}", edit)], \
                _anchor(ref, res, fragment)
    return [LinkProblem("path-absolute", "error", f"absolute path {target!r}: {OUTSIDE}")], None


def _remote(ref: Ref, target: str) -> list[LinkProblem]:
    if ref.kind == "image":
        return [LinkProblem("image-remote", "warning",
                            f"remote image {target!r} cannot load on offline devices; "
                            "copy it into assets/")]
    return []
