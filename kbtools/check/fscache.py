"""What a run knows of the files on disk: cached directory listings, walked component by
component to resolve a link's path in its exact case and Unicode form.

Case and Unicode form are checked by walking cached directory listings, never by asking
the filesystem (authors' laptops are case- and normalisation-insensitive, devices are not);
so is a target that is one file with another on those laptops (`check.names`).
"""

from __future__ import annotations

import difflib
import os
import posixpath
import shlex
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kbtools.check.names import disk_key
from kbtools.ignored import ignored_in, ignored_target, ignored_where
from kbtools.linkscope import hidden_target, hidden_where, is_inside


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
    # the submodules `.gitmodules` lists, relative to the root (`kbtools.check.links`), read
    # on the first missing file of the run
    submodules: tuple[str, ...] | None = None
    # the root-relative folders a build writes (dist/, the cache): their copies of documents
    # and pictures are never a "did you mean" (`files_named`)
    outputs: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.real_root = os.path.realpath(self.root)

    def ignored(self, rel: str) -> bool:
        """Whether Git ignores the root-relative `rel` (as named): no part of the repository,
        never read (`kbtools.ignored`)."""
        return not rel.startswith("/") and ignored_target(
            os.path.join(self.real_root, os.path.normpath(rel)), self.real_root) is not None

    def committed(self, rel: str) -> bool:
        """Whether the commit holds the root-relative `rel`: never when Git ignores it;
        always without `tracked` or outside the root; below a tracked symlink (to a
        folder), judged where it leads."""
        if rel.startswith("/"):
            return True
        if self.ignored(rel):
            return False
        if self.tracked is None or rel in self.tracked:
            return True
        parts = rel.split("/")
        return any("/".join(parts[:i]) in self.tracked
                   and os.path.islink(os.path.join(self.root, *parts[:i]))
                   for i in range(1, len(parts)))

    def not_staged(self, rel: str) -> str:
        """What to say of the root-relative `rel`, on disk but not in the Git index: the
        `git add` to run from where kb runs (pre-commit runs it at the Git root, which in a
        monorepo is above the knowledge base: `git add knowledge/a.md` would fail there)."""
        if self.ignored(rel):
            return ("is ignored by Git (.gitignore): no clone of the repository has it, and kb "
                    "never reads an ignored file; commit it, or link something else")
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
                if self.tracked is not None or self.ignoring():
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
        and the build's `outputs` not entered), as root-relative real-case paths by file name
        as a macOS disk compares it (`disk_key`: lower case, composed Unicode)."""
        if self.touched is not None:
            self.touched.append(rel_dir)
        if rel_dir not in self.named:
            found: dict[str, list[str]] = {}
            for top, dirs, files in os.walk(os.path.join(self.root, rel_dir)):
                dirs[:] = [d for d in dirs if not d.startswith(".")
                           and not os.path.islink(os.path.join(top, d))]
                rel_top = Path(os.path.relpath(top, self.root)).as_posix()
                dirs[:] = [d for d in dirs
                           if posixpath.normpath(posixpath.join(rel_top, d)) not in self.outputs]
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
        """False when symlinks take `rel` outside the repo root, into a hidden entry of
        it (`.git`, `.env`: `linkscope.hidden_target`) or to a file Git ignores
        (`kbtools.ignored`): `leads_where` says which."""
        if self.touched is not None:
            self.touched.append(rel)
        if rel not in self.inside:
            real = os.path.realpath(os.path.join(self.root, rel))
            self.inside[rel] = is_inside(real, self.real_root) \
                and hidden_target(rel, real, self.real_root) is None \
                and self._ignored_link(rel, real) is None
        return self.inside[rel]

    def ignoring(self) -> bool:
        """Whether Git ignores anything in the work tree around the root."""
        scope = ignored_in(self.real_root)
        return scope is not None and bool(scope.entries)

    def _ignored_link(self, rel: str, real: str) -> str | None:
        if posixpath.normpath(rel) == os.path.relpath(real, self.real_root).replace(os.sep, "/"):
            return None  # no link on the way: `committed` judges the name itself
        return ignored_target(real, self.real_root)

    def leads_where(self, rel: str) -> str:
        """Where symlinks lead `rel` that `stays_inside` refuses: outside the repository,
        into a hidden entry (`.git/config`), or into a file Git ignores."""
        real = os.path.realpath(os.path.join(self.root, rel))
        if not is_inside(real, self.real_root):
            return "outside the repository"
        hidden = hidden_target(rel, real, self.real_root)
        if hidden is not None:
            return hidden_where(hidden)
        ignored = self._ignored_link(rel, real)
        return "outside the repository" if ignored is None else ignored_where(ignored)


def nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _compatible(path: str) -> str:  # full-width letters, compatibility forms: plain ones
    return unicodedata.normalize("NFKC", path).casefold()


def compatible_file(rel: str, fs: FsCache) -> str | None:
    """The one existing file named `rel` but for compatibility forms and case (`Ｒeadme.md`),
    its full-width `／` and `．．` (a Chinese input method's `..／assets／a.png`) read as the
    `/` and `..` they stand for."""
    plain = posixpath.normpath(unicodedata.normalize("NFKC", rel))
    if plain == ".." or plain.startswith("../"):
        return None
    real: list[str] = []
    for part in [p for p in plain.split("/") if p and p != "."]:
        entry = fs.listing("/".join(real))
        found = [n for n in entry[0] if _compatible(n) == _compatible(part)] if entry else []
        if len(found) != 1:
            return None
        real.append(found[0])
    path = "/".join(real)
    return path if os.path.isfile(os.path.join(fs.root, path)) else None
