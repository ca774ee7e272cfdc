"""What changed between two releases: documents, sections, verification and the files
documents show or link (a picture, a PDF manual replaced with the same document text).

`diff_releases(device, old, new)` compares two releases of a device (default: the served
one and the newest local release before it); `diff_dirs(old, new)` compares any two release
directories (a build's ``dist/``, a device's ``releases/<tag>/``). What `kb diff`, `kb sync`
and `kb serve` show.

Cheap by construction: the manifest lists the sha256 of every chunk shard and source file,
so only the shards whose hash differs are read (a one-paragraph edit reads two small files).
A section is a document's chunks under one heading path; it changed when the multiset of
its chunks' (kind, text) changed — what a reader is shown, not the text a model embedded —
so lines shifted by an edit above do not count. Two releases built by different kbtools
(another chunker, release format or version: `build_difference`) may cut and word the
chunks of an unchanged document otherwise: a document whose shipped source and front
matter are the same on both sides is then not listed as changed, and the diff says once
that the builds differ.
Its verification is the worst status of its chunks (verified only when all of them are);
"gained" and "lost" are about sections present in both releases, which is where a review
or an edit after review shows.
"""

from __future__ import annotations

import json
import shlex
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol

from kbtools.config import load_config
from kbtools.errors import KbError, SyncError, plural
from kbtools.index.layout import (
    CHUNK_DIR,
    DATA_DIR,
    DOCS,
    MANIFEST,
    RELEASE_JSON,
    SOURCE_DIR,
    UNFINISHED,
    DeviceLayout,
    ReleaseLayout,
    unfinished_release,
)
from kbtools.query.results import shown_title
from kbtools.ship.devicestate import read_json, synced_from
from kbtools.ship.git import TAG_PREFIX, parse_serial, spelled_tag, tag_form_problem, tag_name

__all__ = ["DirFiles", "DocumentChange", "ReleaseDiff", "ReleaseFiles", "ReleaseRef",
           "VerificationChange", "diff_dirs", "diff_files", "diff_releases"]

Section = tuple[str, tuple[str, ...]]  # (doc, heading path)
_CHUNK_PREFIX = f"{DATA_DIR}/{CHUNK_DIR}/"
_SOURCE_PREFIX = f"{DATA_DIR}/{SOURCE_DIR}/"
_DOCS_PATH = f"{DATA_DIR}/{DOCS}"
_RANK = {"verified": 0, "unchecked": 1, "unverified": 2, "lapsed": 3}


@dataclass(frozen=True)
class ReleaseRef:
    """Which release one side of a diff is."""

    tag: str | None
    serial: int | None
    source_commit: str | None
    created: str | None
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"tag": self.tag, "serial": self.serial, "source_commit": self.source_commit,
                "created": self.created, "path": self.path}

    @property
    def name(self) -> str:
        return self.tag or self.path


@dataclass(frozen=True)
class DocumentChange:
    """A document present in both releases whose source, front matter or chunks differ."""

    doc: str
    title: str
    sections_added: tuple[tuple[str, ...], ...] = ()
    sections_removed: tuple[tuple[str, ...], ...] = ()
    sections_changed: tuple[tuple[str, ...], ...] = ()
    metadata_changed: tuple[str, ...] = ()  # front-matter keys whose value changed

    def to_dict(self) -> dict[str, Any]:
        return {"doc": self.doc, "title": self.title,
                "sections_added": [list(h) for h in self.sections_added],
                "sections_removed": [list(h) for h in self.sections_removed],
                "sections_changed": [list(h) for h in self.sections_changed],
                "metadata_changed": list(self.metadata_changed)}


@dataclass(frozen=True)
class VerificationChange:
    """A section whose verification status differs between the two releases."""

    doc: str
    heading_path: tuple[str, ...]
    before: str
    after: str
    reason: str | None = None  # why it is not verified now (lost), from the build

    def to_dict(self) -> dict[str, Any]:
        return {"doc": self.doc, "heading_path": list(self.heading_path),
                "before": self.before, "after": self.after, "reason": self.reason}


@dataclass(frozen=True)
class ReleaseDiff:
    """From `old` (None: nothing, everything is new) to `new`."""

    old: ReleaseRef | None
    new: ReleaseRef
    documents_added: tuple[str, ...] = ()
    documents_removed: tuple[str, ...] = ()
    documents_changed: tuple[DocumentChange, ...] = ()
    verification_gained: tuple[VerificationChange, ...] = ()
    verification_lost: tuple[VerificationChange, ...] = ()
    titles: dict[str, str] = field(default_factory=dict)  # doc -> title (both sides)
    # shipped files besides documents (pictures, PDFs) added, removed or replaced, by path
    files_changed: tuple[str, ...] = ()
    # how the two builds differ ("chunker 13 → 14, kbtools 0.1.0 → 0.2.0"); "" when alike
    builds_differ: str = ""

    @property
    def empty(self) -> bool:
        return not (self.documents_added or self.documents_removed or self.documents_changed
                    or self.verification_gained or self.verification_lost
                    or self.files_changed)

    def sections_changed(self) -> int:
        return sum(len(d.sections_added) + len(d.sections_removed) + len(d.sections_changed)
                   for d in self.documents_changed)

    def summary(self) -> str:
        """One line: ``documents: 2 added, 1 changed (3 sections); verification: 1 section lost``."""
        if self.empty:
            return "no changes"
        parts = []
        if self.documents_added:
            parts.append(f"{len(self.documents_added)} added")
        if self.documents_removed:
            parts.append(f"{len(self.documents_removed)} removed")
        if self.documents_changed:
            n = self.sections_changed()
            parts.append(f"{len(self.documents_changed)} changed"
                         + (f" ({plural(n, 'section')})" if n else ""))
        ver = []
        if self.verification_gained:
            ver.append(f"{plural(len(self.verification_gained), 'section')} gained")
        if self.verification_lost:
            ver.append(f"{plural(len(self.verification_lost), 'section')} lost")
        docs = "documents: " + ", ".join(parts) if parts else ""
        files = f"files: {len(self.files_changed)} changed" if self.files_changed else ""
        return "; ".join(p for p in (docs, "verification: " + ", ".join(ver) if ver else "",
                                     files) if p)

    def to_dict(self) -> dict[str, Any]:
        return {"old": self.old.to_dict() if self.old else None, "new": self.new.to_dict(),
                "summary": self.summary(),
                "documents": {
                    "added": [{"doc": d, "title": self.titles.get(d, "")}
                              for d in self.documents_added],
                    "removed": [{"doc": d, "title": self.titles.get(d, "")}
                                for d in self.documents_removed],
                    "changed": [d.to_dict() for d in self.documents_changed]},
                "verification": {"gained": [v.to_dict() for v in self.verification_gained],
                                 "lost": [v.to_dict() for v in self.verification_lost]},
                "files": list(self.files_changed), "builds_differ": self.builds_differ or None}

    def build_note(self) -> str:
        """The one line saying the two releases were built by different kbtools ("" when
        they were not)."""
        if not self.builds_differ:
            return ""
        return (f"note: the two releases were built differently ({self.builds_differ}): "
                "sections are compared by their text, documents whose source and front matter "
                "are unchanged are not listed")


# ------------------------------------------------------------------- choosing the releases

def diff_releases(device_dir: Path, old: str | None = None,
                  new: str | None = None, *, paths: bool = True) -> ReleaseDiff:
    """Compare two releases of a device: `new` defaults to the served release, `old` to the
    newest local release with a lower serial than `new` (None when there is none: then
    everything in `new` is "added"). With `paths` (the command line), either may also be
    the path of a release directory; a name with a release tag's form (``kb-r5``) only ever
    names a release of the device, never a directory of the working directory. Without
    `paths` (the web API), both are tags of the device's releases only."""
    layout = DeviceLayout(device_dir)
    local = layout.release_dirs()
    new_dir = _pick(device_dir, local, new, paths=paths)
    if old is None:
        serial = _serial_of(new_dir)
        older = sorted((t for t in local if (parse_serial(t) or -1) < serial
                        and local[t] != new_dir), key=lambda t: parse_serial(t) or -1)
        return diff_dirs(local[older[-1]] if older else None, new_dir)
    return diff_dirs(_pick(device_dir, local, old, paths=paths), new_dir)


def _pick(device_dir: Path, local: dict[str, Path], which: str | None, *,
          paths: bool) -> Path:
    if which is None:
        served = DeviceLayout(device_dir).served_release()
        if served is None:
            raise SyncError("this device serves no release yet (run `kb sync`)",
                            path=str(device_dir))
        return served
    if spelled_tag(which) in local:  # "kb-r1 ", KB-R1, ｋｂ－ｒ１ (`spelled_tag`)
        return local[spelled_tag(which)]
    if not paths or (parse_serial(which) is not None and "/" not in which
                     and "\\" not in which):
        raise SyncError(not_on_device(which, local, device_dir), path=str(device_dir))
    path = Path(which)  # not a tag: a directory named so is meant
    if unfinished_release(path) is not None:
        raise SyncError(UNFINISHED, path=which)
    if path.is_dir() and ReleaseLayout(path).is_release():
        return path
    served = DeviceLayout(path).served_release() if path.is_dir() else None
    if served is not None:
        return served
    raise SyncError(f"{not_on_device(which, local, device_dir)}; give a local tag or the "
                    "path of a release directory", path=str(device_dir))


def not_on_device(tag: str, local: Iterable[str], device: Path | None = None) -> str:
    """Why release `tag` is not among a device's `local` releases, in words (what `kb
    rollback`, `kb diff` and `kb query --release` say): pruned, never installed, or not
    published yet; or no release tag at all (``kb-r03``, ``latest``, ``r2``: the form named,
    and the local tag its one number means). With the `device` directory: a release pruned
    says how many its syncs keep (`_pruned_keep`), and one pruned or skipped, still a tag of
    the device's source, which a plain git clone serves, is said with the commands (the
    source the device syncs from, credentials left out, and the pin its keys need there: a
    clone pinning none checks no signature)."""
    tags = sorted(local, key=lambda t: parse_serial(t) or -1)
    serial = parse_serial(tag)
    # no release tag at all ("nonsense", "latest", "r2", "kb-r 2"), none can arrive; or a
    # ref naming one kept here ("refs/tags/kb-r2"), which is not its name: the kept tag its
    # one number means asked for, never taken (`spelled_tag` takes what spells one tag)
    meant = _serial_meant(tag) if serial is None else serial
    kept = meant is not None and tag_name(meant) in tags and tag != tag_name(meant)
    asked = f"; did you mean {tag_name(meant)}?" if kept and meant else ""
    if (named := tag_form_problem(tag)) is not None:  # "kb-r01 … kb-r1 is one": said
        asked = "" if f"{tag_name(meant or 0)} is one" in named else asked
        return f"{named}{asked} (local: {', '.join(tags) or 'none'})"
    if serial is None or kept:
        return (f"{tag} is not a release tag ({TAG_PREFIX}<serial>, e.g. {TAG_PREFIX}12)"
                f"{asked} (local: {', '.join(tags) or 'none'})")
    serials = [s for s in map(parse_serial, tags) if s is not None]
    why = ""
    if serial is not None and serials and serial < min(serials):
        why = (": it is older than every release kept here (each `kb sync` deletes all but "
               f"the newest {_keep_said(device)}, and never installs an older one)")
    elif serial is not None and serials and serial > max(serials):
        why = ": it is newer than every release here (`kb sync` installs the newest one)"
    elif serial is not None and serials:
        why = (": `kb sync` installs only the newest release it is offered, so one "
               "published between two syncs never arrives")
    source = synced_from(device) if device is not None else None
    return (f"release {tag} is not on this device{why} (local: {', '.join(tags) or 'none'})"
            f"{clone_hint(tag, tags, source)}")


def clone_hint(tag: str, local: Iterable[str], source: tuple[str, bool] | None) -> str:
    """``; a git clone of the source serves …`` with its commands, when release `tag` is
    older than the newest of a device's `local` releases (pruned or skipped: the source
    the device syncs from, `source` as `not_on_device` takes it, has it still); else ""."""
    serial = parse_serial(tag)
    newest = max((s for s in map(parse_serial, local) if s is not None), default=None)
    if not source or serial is None or newest is None or serial >= newest:
        return ""
    return (f"; a git clone of the source serves any of its releases: `git clone "
            f"{shlex.quote(source[0])} DIR && git -C DIR checkout {tag}`, "
            + ("`kb trust add PUB --to DIR` with this device's keys, " if source[1] else "")
            + "then `kb query --index DIR`")


def _pruned_keep(device: Path) -> int | None:
    """How many releases the syncs of `device` keep: what its last sync that installed a
    release pruned to (state.json ``keep``), else kb.toml's ``[release] keep`` (found from
    the current directory, as `kb sync` reads it); None when neither can be read."""
    keep = read_json(DeviceLayout(device).state).get("keep")
    if isinstance(keep, int) and not isinstance(keep, bool) and keep > 0:
        return keep
    try:
        keep = load_config().section("release").get("keep")
    except KbError:  # a kb.toml that does not parse: the setting is named, not its value
        return None
    return keep if isinstance(keep, int) and not isinstance(keep, bool) else None


def _keep_said(device: Path | None) -> str:
    keep = _pruned_keep(device) if device is not None else None
    if keep is None:
        return "`[release] keep`"
    return f"{keep}, this device's `[release] keep`"


def _serial_meant(name: str) -> int | None:
    """The serial a name that is no release tag may mean: its one run of digits, of any
    script ("2" in "r2", "KB-R2", "第２版"), when it has exactly one (of at most 9 digits)
    and it is not 0; else None."""
    runs = ["".join(run) for digit, run in groupby(name, str.isdecimal) if digit]
    if len(runs) != 1 or len(runs[0]) > 9:
        return None
    return int(runs[0]) or None


def _serial_of(root: Path) -> int:
    serial = read_json(ReleaseLayout(root).release_json).get("serial")
    return serial if isinstance(serial, int) else (parse_serial(root.name) or -1)


# ------------------------------------------------------------------- comparing two releases

class ReleaseFiles(Protocol):
    """Where one side of a diff reads a release's files: a directory (`DirFiles`), or the
    git objects of a clone's release tag (`kbtools.ship.tagged.TagFiles`)."""

    @property
    def where(self) -> str:
        """The release as a diff names it when it has no tag (its path)."""
        ...

    def read(self, rel: str) -> bytes | None:
        """The bytes of the release file `rel` (a path in the release), None when missing;
        SyncError when it cannot be read."""
        ...


@dataclass(frozen=True)
class DirFiles:
    """A release directory's files (a build's dist/, a device's releases/<tag>)."""

    root: Path

    @property
    def where(self) -> str:
        return str(self.root)

    def read(self, rel: str) -> bytes | None:
        path = self.root / rel
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SyncError(f"cannot read {path.name}: {exc.strerror}", path=str(path)) from None


@dataclass
class _Side:
    ref: ReleaseRef
    manifest: dict[str, Any]
    docs: dict[str, dict[str, Any]]


def _side(files: ReleaseFiles, *, docs: bool = True) -> _Side:
    """One release: its identity, manifest and (when `docs`) document records."""
    manifest = _manifest(files)
    rel = _json_object(files.read(RELEASE_JSON))
    serial = rel.get("serial")
    ref = ReleaseRef(tag=rel.get("tag") if isinstance(rel.get("tag"), str) else None,
                     serial=serial if isinstance(serial, int) else None,
                     source_commit=(manifest.get("source") or {}).get("commit"),
                     created=rel.get("created"), path=files.where)
    return _Side(ref, manifest, _docs(files) if docs else {})


def _json_object(data: bytes | None) -> dict[str, Any]:
    """A JSON object ({} when missing or not one)."""
    try:
        obj = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _docs(files: ReleaseFiles) -> dict[str, dict[str, Any]]:
    """Document records of a release by path."""
    return {d["doc"]: d for d in _records(files.read(_DOCS_PATH))
            if isinstance(d.get("doc"), str)}


def _manifest(files: ReleaseFiles) -> dict[str, Any]:
    """The manifest as JSON. Not validated again: a device's releases were verified when
    synced, and a diff only reads hashes from it (the schema check costs seconds on a
    manifest listing thousands of files)."""
    where = f"{files.where}/{MANIFEST}"
    try:
        data = json.loads(files.read(MANIFEST) or b"")
    except ValueError as exc:
        raise SyncError(f"cannot read the manifest: {exc}", path=where) from None
    if not isinstance(data, dict):
        raise SyncError("the manifest is not a JSON object", path=where)
    return data


def _records(data: bytes | None) -> Iterable[dict[str, Any]]:
    """JSON objects of a JSON Lines file of a release (missing file: none; bad lines skipped:
    the release was verified against its manifest, this is only a report)."""
    if data is None:
        return
    for line in data.split(b"\n"):
        if line.strip():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                yield rec


def _changed_files(old: dict[str, Any], new: dict[str, Any], prefix: str) -> set[str]:
    """Files under `prefix` listed by either manifest with a different (or no) hash."""
    a, b = old.get("artifacts", {}), new.get("artifacts", {})
    return {p for p in set(a) | set(b) if p.startswith(prefix)
            and (a.get(p) or {}).get("sha256") != (b.get(p) or {}).get("sha256")}


@dataclass
class _Sec:
    content: list[tuple[str, str]] = field(default_factory=list)
    status: str = "verified"
    reason: str | None = None


def _sections(files: ReleaseFiles | None, shards: set[str]) -> dict[Section, _Sec]:
    """Sections of the chunks in the given shard files of a release."""
    out: dict[Section, _Sec] = defaultdict(_Sec)
    if files is None:
        return out
    for rel in sorted(shards):
        for rec in _records(files.read(rel)):
            doc, heads = rec.get("doc"), rec.get("heading_path")
            if not isinstance(doc, str) or not isinstance(heads, list):
                continue
            sec = out[(doc, tuple(str(h) for h in heads))]
            sec.content.append((str(rec.get("kind")), str(rec.get("text"))))
            ver = _metadata(rec, "verification")
            status = str(ver.get("status") or ("verified" if ver.get("verified") else
                                               "unverified"))
            if _RANK.get(status, 2) > _RANK.get(sec.status, 2):
                sec.status, sec.reason = status, ver.get("reason")
    return out


def _metadata(rec: dict[str, Any], key: str = "metadata") -> dict[str, Any]:
    """The object under `key` of a record ({} when missing or not an object)."""
    meta = rec.get(key)
    return meta if isinstance(meta, dict) else {}


def build_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """How the builds of two manifests differ in what cuts and words their chunks (the
    chunker version in the config fingerprint, the release format, the kbtools version), in
    words; "" when alike."""
    def chunker(m: dict[str, Any]) -> str | None:  # "<settings>-c14[-v<vocabulary>]"
        parts = str((m.get("config") or {}).get("fingerprint") or "").split("-")[1:]
        return next((p[1:] for p in parts if p.startswith("c")), None)

    parts = []
    for name, a, b in (("chunker", chunker(old), chunker(new)),
                       ("format", old.get("format_version"), new.get("format_version")),
                       ("kbtools", old.get("kbtools_version"), new.get("kbtools_version"))):
        if a != b:
            parts.append(f"{name} {a if a is not None else '?'} → {b if b is not None else '?'}")
    return ", ".join(parts)


def diff_dirs(old: Path | None, new: Path) -> ReleaseDiff:
    """Compare two release directories (`old` None: an empty one)."""
    return diff_files(DirFiles(old) if old is not None else None, DirFiles(new))


def diff_files(old: ReleaseFiles | None, new: ReleaseFiles) -> ReleaseDiff:
    """Compare two releases read through `ReleaseFiles` (`old` None: an empty one)."""
    b = _side(new)
    if old is None:
        a = _Side(ReleaseRef(None, None, None, None, ""), {}, {})
    else:  # the same docs.jsonl on both sides (the usual case) is parsed once
        a = _side(old, docs=False)
        same = not _changed_files(a.manifest, b.manifest, _DOCS_PATH)
        a.docs = b.docs if same else _docs(old)
    shards = _changed_files(a.manifest, b.manifest, _CHUNK_PREFIX)
    sec_a, sec_b = _sections(old, shards), _sections(new, shards)
    sources = {p[len(_SOURCE_PREFIX):]
               for p in _changed_files(a.manifest, b.manifest, _SOURCE_PREFIX)}
    added = tuple(sorted(set(b.docs) - set(a.docs)))
    removed = tuple(sorted(set(a.docs) - set(b.docs)))
    builds = build_difference(a.manifest, b.manifest) if old is not None else ""
    changed = _document_changes(a, b, sec_a, sec_b, sources, set(added) | set(removed))
    if builds:  # an unchanged document cut or worded otherwise by the other build: noise
        changed = [c for c in changed if c.metadata_changed or _source_changed(a, b, c.doc)]
    gained, lost = _verification_changes(sec_a, sec_b)
    named = [*added, *removed, *(c.doc for c in changed)]
    titles = {d: shown_title(_metadata(side.docs[d]), "")
              for side in (a, b) for d in named if d in side.docs}
    files = tuple(sorted(p for p in sources if p not in a.docs and p not in b.docs))
    return ReleaseDiff(a.ref if old is not None else None, b.ref, added, removed,
                       tuple(changed), gained, lost, titles, files, builds)


def _source_changed(a: _Side, b: _Side, doc: str) -> bool:
    """Whether the shipped source of `doc` differs (or either side ships none to compare)."""
    path = _SOURCE_PREFIX + doc
    old, new = a.manifest.get("artifacts", {}).get(path), b.manifest.get("artifacts", {}).get(path)
    return not (isinstance(old, dict) and isinstance(new, dict) and old.get("sha256")
                and old.get("sha256") == new.get("sha256"))


def _document_changes(a: _Side, b: _Side, sec_a: dict[Section, _Sec], sec_b: dict[Section, _Sec],
                      sources: set[str], skip: set[str]) -> list[DocumentChange]:
    """Documents in both releases whose sections, front matter or source differ."""
    by_doc: dict[str, dict[str, list[tuple[str, ...]]]] = defaultdict(
        lambda: {"added": [], "removed": [], "changed": []})
    for key in sorted(set(sec_a) | set(sec_b)):
        doc, heads = key
        if doc in skip:
            continue
        if key not in sec_a:
            by_doc[doc]["added"].append(heads)
        elif key not in sec_b:
            by_doc[doc]["removed"].append(heads)
        elif sorted(sec_a[key].content) != sorted(sec_b[key].content):
            by_doc[doc]["changed"].append(heads)
    same_docs = a.docs is b.docs
    candidates = set(by_doc) | sources if same_docs else set(a.docs) & set(b.docs)
    changed = []
    for doc in sorted(candidates & set(a.docs) & set(b.docs)):
        meta_a, meta_b = _metadata(a.docs[doc]), _metadata(b.docs[doc])
        keys = tuple(sorted(k for k in set(meta_a) | set(meta_b)
                            if meta_a.get(k) != meta_b.get(k)))
        secs = by_doc.get(doc) or {"added": [], "removed": [], "changed": []}
        if doc in by_doc or keys or doc in sources:
            changed.append(DocumentChange(doc, shown_title(meta_b, ""),
                                          tuple(secs["added"]), tuple(secs["removed"]),
                                          tuple(secs["changed"]), keys))
    return changed


def _verification_changes(sec_a: dict[Section, _Sec], sec_b: dict[Section, _Sec]
                          ) -> tuple[tuple[VerificationChange, ...],
                                     tuple[VerificationChange, ...]]:
    """Sections in both releases that became verified (gained) or stopped being (lost)."""
    gained: list[VerificationChange] = []
    lost: list[VerificationChange] = []
    for key in sorted(set(sec_a) & set(sec_b)):
        before, after = sec_a[key].status, sec_b[key].status
        if (before == "verified") == (after == "verified"):
            continue
        change = VerificationChange(key[0], key[1], before, after,
                                    None if after == "verified" else sec_b[key].reason)
        (gained if after == "verified" else lost).append(change)
    return tuple(gained), tuple(lost)
