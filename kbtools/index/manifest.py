"""The index manifest: what a build produced and how to verify it.

A built index directory (``dist/``, or one release on a device; every path is named in
`kbtools.index.layout`) looks like::

    manifest.json            this file's subject; validated by manifest.schema.json
    data/...                 the release content, content-addressed or sharded so that
                             unchanged content stays byte-identical between releases
    index/...                derived files (usearch graph, BM25 matrices, SQLite store),
                             rebuilt deterministically from data/ by `kbtools.index.materialize`

``artifacts`` lists every file under data/, ``derived`` every file under index/, each with
sha256 and size. A release ships manifest.json + data/; a device re-derives index/ and can
check it against ``derived`` because builds are reproducible.

Path rules (`path_problem`, `manifest_path_problems`): a listed path is '/'-separated UTF-8,
relative, without empty, '.' or '..' segments, backslashes, control characters,
bidirectional controls or git's own names (.git, .gitattributes,
.gitmodules), and without a segment made only of dots and spaces or their lookalikes
(``．．``, ``‥``: compatibility-normalized (NFKC) they are ``..``, and Windows and FAT drop
the trailing dots and spaces), under data/ (artifacts) or index/ (derived); no two listed
paths may collide after Unicode NFC normalization, case folding and the trailing dots and
spaces of each segment dropped (they would be one file on a case-insensitive, normalizing
or FAT file system: a device's SD card), and no listed file may be a parent directory of
another. Signed JSON (manifest.json, release.json) is read with
`loads_unique`: a key given twice in one object is refused, since JSON readers disagree on
which of the two counts (Python's takes the last, others the first or either), so such a
document would not say one thing to every reader. `verify_files` checks those rules before it opens anything, and
then opens every file without following links and without blocking, reading at most the
listed size + 1 bytes.

A manifest's check against its schema (~0.3 s on a 24k-chunk release, the jsonschema import
and validator included) is remembered under KB_HOME (`cache/manifests/`) by the SHA-256 of
the manifest's bytes and of what judged them (`_judge`: the schema's bytes and the
validator library's files): a cold `kb query` of a release checked before parses its
manifest and checks its format version but does not validate it again. Any other bytes,
or another schema or jsonschema, are validated as before; a memo that cannot be read or
written only costs the validation.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbtools.beneath import open_beneath, read_beneath
from kbtools.cachedb import keep_newest
from kbtools.config import kb_home
from kbtools.errors import IndexLoadError, Keyed, bidi_control
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.layout import DATA_DIR, DERIVED_DIR, MANIFEST, RELEASE_JSON, RELEASE_SIG
from kbtools.index.stamps import MISSING, Signature, of_stat, signature

FORMAT_VERSION = 3
RELEASE_FILES = frozenset({MANIFEST, RELEASE_JSON, RELEASE_SIG})  # top level of a release tree
MAX_MANIFEST_BYTES = 64 << 20
MAX_PATH_BYTES = 1024
MAX_SEGMENT_BYTES = 255
_GIT_NAMES = frozenset({".git", ".gitattributes", ".gitmodules"})
_SECTIONS = {"artifacts": DATA_DIR, "derived": DERIVED_DIR}
MEMO_VERSION = 1  # bump when what a remembered check covers changes
MEMO_KEEP = 64  # manifests remembered as valid (those used last)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def list_files(root: Path, sub: str,
               known: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The manifest entries of every file under root/sub; `known` holds entries the caller
    vouches for (files it took, unchanged, from a release it had listed), not hashed again."""
    base = root / sub
    out: dict[str, dict[str, Any]] = {}
    if not base.is_dir():
        return out
    known = known or {}
    found: list[tuple[tuple[str, ...], str]] = []  # (path parts, posix path) of every file
    for top, dirs, files in os.walk(base):  # symlinked folders are not entered, as rglob
        prefix = os.path.relpath(top, root).replace(os.sep, "/")
        found += [((*prefix.split("/"), name), f"{prefix}/{name}") for name in files
                  if os.path.isfile(os.path.join(top, name))]
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
    for _, rel in sorted(found):  # in the order of sorted Paths (part by part)
        out[rel] = known[rel] if rel in known else file_entry(root / rel)
    return out


def file_entry(path: Path) -> dict[str, Any]:
    """A file's entry in the manifest's ``artifacts``."""
    return {"sha256": sha256_file(path), "size": path.stat().st_size}


def dumps(manifest: dict[str, Any]) -> bytes:
    """Canonical bytes: sorted keys, fixed separators, trailing newline."""
    return (json.dumps(manifest, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode()


def write_manifest(root: Path, manifest: dict[str, Any], validate: bool = True,
                   known: Mapping[str, dict[str, Any]] | None = None) -> None:
    """Write the manifest, checked against its schema (`validate=False`: a draft the caller
    validates when it writes the final one). `known`: artifact entries taken unchanged from
    a manifest validated before (a previous build's, for the files a rebuild took as they
    are); the schema judges each entry of "artifacts" on its own, so those are not judged
    again (an entry that differs from its known value is)."""
    from kbtools.schemas import validator_for

    checked = manifest
    if validate and known:
        checked = {**manifest, "artifacts": {p: e for p, e in manifest["artifacts"].items()
                                             if known.get(p) != e}}
    errors = list(validator_for("manifest").iter_errors(checked)) if validate else []
    if errors:
        raise IndexLoadError(f"internal: manifest invalid: {errors[0].message}",
                             path=str(root / MANIFEST))
    data = dumps(manifest)
    atomic_write_bytes(root / MANIFEST, data)
    if validate:  # the entries taken as known were validated before: all of it is valid
        _remember_valid(data)


def load_manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    if not path.is_file():
        raise IndexLoadError("no manifest.json: not a kb index (run `kb build` or `kb sync`)",
                             path=str(root), key="index_missing")
    try:
        data = read_beneath(root, MANIFEST, MAX_MANIFEST_BYTES)
    except OSError as exc:
        raise IndexLoadError(f"manifest unreadable: {exc.strerror}", path=str(path)) from None
    return parse_manifest(data, str(path))


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {show_path(key)!r} appears twice in one object")
        out[key] = value
    return out


MAX_JSON_DEPTH = 64  # arrays and objects inside one another; a manifest nests 4 deep


def loads_unique(data: bytes | str) -> Any:
    """JSON like `json.loads`, except that an object naming a key twice is a ValueError, and
    so is one nested more than `MAX_JSON_DEPTH` deep. The signed files come from a source
    and are read before their signature is checked: ``[[[[…`` 100,000 deep (a 200 kB
    release.json, a 64 KiB release.sig) made Python's reader raise RecursionError, which
    `kb sync` reported as a crash with a traceback; one a few hundred deep that it read made
    a later comparison of it do the same."""
    try:
        value = json.loads(data, object_pairs_hook=_unique_pairs)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_JSON_DEPTH} deep") from None
    if _depth_over(value, MAX_JSON_DEPTH):
        raise ValueError(f"nested more than {MAX_JSON_DEPTH} deep")
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether `value` (parsed JSON) nests arrays and objects more than `limit` deep; walked
    level by level without recursion (every container is visited: the manifest's schema
    leaves eight objects open, so depth cannot be bounded by validating first). A level is
    one list comprehension: ~4x faster than a stack of (item, depth) pairs on a 54,000-chunk
    release's manifest, which every cold `kb query` reads."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(limit):
        if not level:
            return False
        level = [x for item in level
                 for x in (item.values() if type(item) is dict else item)
                 if type(x) is dict or type(x) is list]
    return bool(level)


def parse_manifest(data: bytes, where: str) -> dict[str, Any]:
    """A manifest from its bytes: JSON, supported format version, valid against the schema
    (a check remembered for these bytes, `_known_valid`, is not made again)."""
    path = where
    try:
        manifest = loads_unique(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise IndexLoadError(f"manifest is not valid JSON: {exc}", path=str(path)) from None
    if not isinstance(manifest, dict) or manifest.get("format_version") != FORMAT_VERSION:
        version = manifest.get("format_version") if isinstance(manifest, dict) else None
        raise IndexLoadError(format_problem(version), path=str(path))
    if _known_valid(data):
        return manifest
    from kbtools.schemas import validator_for  # jsonschema: ~50 ms to import

    errors = list(validator_for("manifest").iter_errors(manifest))
    if errors:
        err = errors[0]
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise IndexLoadError(f"manifest invalid at {where}: {err.message}", path=str(path))
    _remember_valid(data)
    return manifest


_JUDGE: list[bytes] = []  # `_judge`'s value, worked out once a process


def _judge() -> bytes:
    """What a manifest's validity depends on besides its bytes: the package's manifest
    schema (its bytes) and the jsonschema installed (the size, times and inode of each of
    its files that judge: validators, keywords, formats, its dialect schemas by the
    `jsonschema_specifications` files). Found without importing jsonschema (~50 ms);
    b"" when any of it cannot be read: nothing is then remembered."""
    if not _JUDGE:
        from importlib import resources
        from importlib.util import find_spec

        digest = hashlib.sha256(f"{MEMO_VERSION}:{FORMAT_VERSION}\0".encode())
        try:
            schemas = Path(str(resources.files("kbtools") / "data" / "schemas"))
            digest.update((schemas / "manifest.schema.json").read_bytes())
            for package in ("jsonschema", "jsonschema_specifications", "referencing"):
                spec = find_spec(package)
                if spec is None or not spec.submodule_search_locations:
                    raise OSError(f"{package} not found")
                home = next(iter(spec.submodule_search_locations))
                for top, dirs, files in os.walk(home):
                    dirs[:] = sorted(d for d in dirs if d not in ("tests", "__pycache__"))
                    for name in sorted(f for f in files if f.endswith((".py", ".json"))):
                        st = os.stat(os.path.join(top, name))
                        digest.update(f"{top[len(home):]}/{name}:{st.st_size}:"
                                      f"{st.st_mtime_ns}:{st.st_ino}\0".encode())
            _JUDGE.append(digest.digest())
        except (OSError, ValueError, ImportError):
            _JUDGE.append(b"")
    return _JUDGE[0]


def _memo(data: bytes) -> Path | None:
    """The file whose presence says a manifest of these bytes was found valid by this judge."""
    judge = _judge()
    if not judge:
        return None
    key = hashlib.sha256(judge + hashlib.sha256(data).digest()).hexdigest()
    return kb_home() / "cache" / "manifests" / f"{key[:40]}.valid"


def _known_valid(data: bytes) -> bool:
    """Whether these bytes were remembered valid; a memo found is marked used now, so
    `keep_newest` keeps the manifests used last (a device's one release, asked every day,
    was dropped once 64 others had been checked since it was first remembered)."""
    memo = _memo(data)
    try:
        if memo is None or not memo.is_file():
            return False
    except OSError:
        return False
    try:
        os.utime(memo)
    except OSError:  # a read-only KB_HOME: still known, only not marked
        pass
    return True


def _remember_valid(data: bytes) -> None:
    """Remember that a manifest of these bytes is valid (best effort), keeping the
    `MEMO_KEEP` used last."""
    memo = _memo(data)
    if memo is None:
        return
    try:
        atomic_write_bytes(memo, b"")
        keep_newest(memo, "*.valid", MEMO_KEEP)
    except OSError:
        return


def format_problem(version: object) -> str:
    """Why a manifest's ``format_version`` is not the one this kbtools reads, and what to
    do: a newer kbtools made it (upgrade this one), an older one did (build it again), or it
    names no version."""
    said = f"index format version {version!r} is not supported"
    if type(version) is not int:
        return f"{said} (this kb reads {FORMAT_VERSION}); rebuild or sync a compatible release"
    if version > FORMAT_VERSION:
        return (f"{said}: it is newer than the {FORMAT_VERSION} this kbtools reads (made by a "
                "newer kbtools); upgrade kbtools on this device to read it")
    return (f"{said}: it is older than the {FORMAT_VERSION} this kbtools reads (made by an "
            "older kbtools); build it again with `kb build` (a device: sync a release made by "
            "this kbtools)")


def show_path(rel: str) -> str:
    """A path as one printable line (repr when it holds control or undecodable characters)."""
    return rel if rel.isprintable() else repr(rel)


def path_problem(rel: str) -> str | None:
    """Why `rel` may not name a file of a release (None when it may)."""
    if not rel:
        return "empty path"
    try:
        size = len(rel.encode("utf-8"))
    except UnicodeEncodeError:
        return "not valid UTF-8"
    if rel.startswith("/"):
        return "absolute path"
    if "\\" in rel:
        return "backslash in path"
    if any(unicodedata.category(c) == "Cc" for c in rel):
        return "control character in path"
    if (bidi := bidi_control(rel)) is not None:
        return f"bidirectional control character {bidi[1]} in path (it shows the name " \
               "in another order than it is written)"
    if size > MAX_PATH_BYTES:
        return f"path longer than {MAX_PATH_BYTES} bytes"
    for seg in rel.split("/"):
        if seg in ("", ".", ".."):
            return "empty, '.' or '..' path segment"
        if _only_dots(seg):
            return f"path segment {seg!r} is only dots and spaces (a lookalike of '..')"
        if len(seg.encode("utf-8")) > MAX_SEGMENT_BYTES:
            return f"path segment longer than {MAX_SEGMENT_BYTES} bytes"
        if seg.casefold() in _GIT_NAMES:
            return f"git's own name {seg!r} in path"
    return None


def _only_dots(seg: str) -> bool:
    """Whether `seg` is made only of dots and spaces once compatibility-normalized (NFKC):
    ``..`` written with lookalikes (``．．`` fullwidth, ``‥`` two-dot leader, ``. .``),
    which a tool that normalizes names, or Windows and FAT dropping a name's trailing dots
    and spaces, turns into ``.``, ``..`` or nothing. No real file is named so."""
    return set(unicodedata.normalize("NFKC", seg)) <= {".", " "}


def _fold(rel: str) -> str:
    """The name a case-insensitive, normalizing file system sees: normalized again after
    case folding, which can undo a composition (U+01F0 folds to j + U+030C, which must then
    reorder with a following mark), and each segment without its trailing dots and spaces,
    which Windows and FAT (a device's SD card) drop (``a.txt.`` is ``a.txt`` there)."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", rel).casefold())
    return "/".join(seg.rstrip(". ") for seg in folded.split("/"))


def manifest_path_problems(manifest: dict[str, Any]) -> list[str]:
    """Listed paths that break the path rules (see the module docstring)."""
    problems: list[str] = []
    folded: dict[str, str] = {_fold(name): name for name in sorted(RELEASE_FILES)}
    for section, top in _SECTIONS.items():
        for rel in sorted(manifest.get(section, {})):
            why = path_problem(rel)
            if why is None and not rel.startswith(top + "/"):
                why = f"{section} must lie under {top}/"
            if why is None and (other := folded.get(_fold(rel))) is not None:
                why = f"collides with {show_path(other)} (same name after Unicode " \
                      "normalization and case folding)"
            if why is not None:
                problems.append(f"{show_path(rel)}: {why}")
                continue
            folded[_fold(rel)] = rel
    for key, rel in sorted(folded.items()):
        parts = key.split("/")
        for i in range(1, len(parts)):
            if (parent := folded.get("/".join(parts[:i]))) is not None:
                problems.append(f"{show_path(rel)}: {show_path(parent)} is listed as a file")
                break
    return problems


def file_problem(root: Path, rel: str, size: int, sha256: str,
                 signed: dict[str, Signature] | None = None) -> Keyed | None:
    """Why root/rel is not the listed file (None when it is): opened without following links
    or blocking, at most size + 1 bytes read. A file found as listed goes into `signed`
    with its stat signature, when that was the same before and after hashing it. The reason
    is `Keyed` (``file_*``, with the values its words name) for `kb status` to say in
    Chinese."""
    try:
        fd = open_beneath(root, rel, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return Keyed("missing", "file_missing")
        if exc.errno == errno.ELOOP:
            return Keyed("symbolic link (refused)", "file_link")
        return _unreadable(exc)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Keyed("not a regular file", "file_not_regular")
        if st.st_size != size:
            return Keyed(f"size {st.st_size} != {size}", "file_size",
                         {"size": st.st_size, "want": size})
        h = hashlib.sha256()
        left = size + 1
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            h.update(block)
            left -= len(block)
        if left != 1:
            return Keyed("size changed while reading", "file_size_changed")
        if h.hexdigest() != sha256:
            return Keyed("sha256 mismatch", "file_sha256")
        if signed is not None and of_stat(os.fstat(fd)) == of_stat(st):
            signed[rel] = of_stat(st)
        return None
    except OSError as exc:
        return _unreadable(exc)
    finally:
        os.close(fd)


def named_problem(rel: str, why: Keyed) -> Keyed:
    """`file_problem`'s reason with the file it is of ("data/a.md: sha256 mismatch"), keyed
    with the file among its values."""
    return Keyed(f"{rel}: {why}", why.key, {"file": rel, **why.values})


def _unreadable(exc: OSError) -> Keyed:
    return Keyed(f"unreadable ({exc.strerror})", "file_unreadable", {"reason": exc.strerror})


def verify_files(root: Path, manifest: dict[str, Any], *, derived: bool = True,
                 artifacts: bool = True, signed: dict[str, Signature] | None = None,
                 known: Mapping[str, Signature] | None = None) -> list[str]:
    """Problems found comparing files on disk with the manifest (empty list = verified);
    `signed` gets the stat signature of each file hashed and found as listed. `derived` /
    `artifacts` False: the files of that section are not checked (``derived``: an index/
    the manifest pins, in older releases; ``artifacts=False`` checks only those, for a
    caller that has verified data/ already: a data file is hashed once).

    `known` holds stat signatures the caller took of files it hashed and found as listed,
    each changed before the file system's clock was read ahead of that hash
    (`kbtools.index.stamps`): a file whose signature is still that one is not hashed again
    (it goes into `signed` as it is); any change since gives it another change time, so
    another signature, and it is hashed.

    The path rules come first: a manifest naming a path outside its section (``..``, an
    absolute path, another top-level directory) gets that problem and nothing is opened.
    """
    problems = manifest_path_problems(manifest)
    if problems:
        return problems
    sections = (["artifacts"] if artifacts else []) + (["derived"] if derived else [])
    for section in sections:
        for rel, meta in sorted(manifest.get(section, {}).items()):
            if known and (sig := signature(root / rel)) != MISSING and known.get(rel) == sig:
                if signed is not None:
                    signed[rel] = sig
                continue
            why = file_problem(root, rel, meta["size"], meta["sha256"], signed)
            if why is not None:
                problems.append(named_problem(rel, why))
    return problems


def unlisted_entries(root: Path, expected: set[str], under: str = "") -> list[str]:
    """Problems for what lies below root/under besides the `expected` regular files (paths
    relative to root): unlisted files, symbolic links, FIFOs, sockets, devices."""
    top = root / under if under else root
    problems: list[str] = []
    if not top.is_dir() or top.is_symlink():
        return [f"{under}: not a directory"] if top.is_symlink() else []
    for dirpath, dirnames, filenames in os.walk(top):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                problems.append(f"{show_path(rel)}: symbolic link")
            elif stat.S_ISDIR(mode):
                continue
            elif not stat.S_ISREG(mode):
                problems.append(f"{show_path(rel)}: not a regular file")
            elif rel not in expected:
                problems.append(f"{show_path(rel)}: not listed in manifest")
    return problems


SHALLOW_WARNING = ("built from a shallow clone (manifest source.shallow): the history the "
                   "build reads is not fetched, so passages have no last change or author "
                   "and verified documents are served as unverified, unlike a full clone's "
                   "release of the same commit; fetch the whole history (`git fetch "
                   "--unshallow`; in GitHub Actions actions/checkout with `fetch-depth: 0`) "
                   "and build again")


def history_warnings(source: Mapping[str, Any]) -> tuple[str, ...]:
    """What `kb build` and `kb release` say of a manifest's `source` built without the
    history its release needs (a shallow clone); nothing for a full clone."""
    return (SHALLOW_WARNING,) if source.get("shallow") is True else ()
