"""The one git layer of shipping: the git commands that release, sync and bundle run.

Every call runs the ``git`` executable against an explicit ``--git-dir`` (found once with
`find_git_dir`), through `kbtools.ship.gitrun` (one environment, limits on the network).

Release refs are named and listed here too: tags ``kb-r<serial>``; in a knowledge
repository the artifacts branch and tags live under ``refs/kb/heads/`` and
``refs/kb/tags/``, which a plain clone or push never carries; `list_source` reads what a
remote, a path or a bundle file offers.

A release tree is read as git objects, never checked out: `ls_tree` lists every entry with
its mode, type and size (paths kept byte-exact: undecodable bytes survive as lone
surrogates), `BlobReader` streams blob contents of the sizes the caller expects.

What git says of a client's clone of the artifacts repository (its work tree, what differs
there, a command stopped half-way) is `kbtools.ship.worktree`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kbtools.config import RELEASE_TAG_PREFIX, RELEASE_TAG_RE
from kbtools.errors import (
    KbError,
    Keyed,
    ReleaseError,
    SyncError,
    one_line,
    plural,
    unpadded,
)
from kbtools.fsutil import staging_dir
from kbtools.pathspecs import top_literal
from kbtools.ship.gitrun import (
    PINNED_ARGS,
    NetLimits,
    failure_reason,
    run_git,
    run_git_proc,
    run_plain,
    run_raw,
    shipping_env,
    started,
)

TAG_PREFIX = RELEASE_TAG_PREFIX
LOCAL_HEADS = "refs/kb/heads/"
LOCAL_TAGS = "refs/kb/tags/"
# A release tag is exactly what `tag_name` writes: kb-r and the serial in ASCII decimal
# digits, from 1, without leading zeros. Any other name (kb-r03, kb-r0, kb-r٣ in other
# digits) is no release tag: read as a number, kb-r3 and kb-r03 would both claim serial 3.
_TAG_RE = RELEASE_TAG_RE


def tag_name(serial: int) -> str:
    """The release tag of a serial (12 -> ``kb-r12``)."""
    return f"{TAG_PREFIX}{serial}"


def parse_serial(tag: str) -> int | None:
    """Serial of a release tag name or ref (``kb-r12``, ``refs/tags/kb-r12`` -> 12); None
    for any other name, a non-canonical one too (``kb-r012``: `tag_form_problem`)."""
    m = _TAG_RE.match(tag.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def spelled_tag(name: str) -> str:
    """The release tag an operator's `name` spells: `name` itself, or the one tag it is once
    the blanks around it are dropped and it is read as NFKC in lower case (``"kb-r1 "``
    pasted with a blank, ``KB-R1``, a full-width ``ｋｂ－ｒ１`` from a Chinese input method:
    no other tag reads so). Any other name is returned as given, for the caller to refuse
    with the tag it may mean (``r1``, ``1``: one release back, or serial 1?; ``kb-r01``)."""
    if parse_serial(name) is not None:
        return name
    read = unpadded(unicodedata.normalize("NFKC", name)).lower()  # a zero-width space too
    return read if "/" not in read and parse_serial(read) is not None else name


def tag_form_problem(tag: str) -> str | None:
    """Why a name (or ref) that begins as a release tag does is none (``kb-r03`` -> "kb-r03
    is not a release tag: …"); None for a release tag and for names of other forms."""
    name = tag.rsplit("/", 1)[-1]
    if not name.startswith(TAG_PREFIX) or parse_serial(name) is not None:
        return None
    meant = f"; {_meant(name)} is one" if _meant(name) else ""
    return (f"{name} is not a release tag ({TAG_PREFIX}<serial>: the serial in the digits "
            f"0-9, from 1, without leading zeros{meant})")


def rev_parse(git_dir: Path | str, ref: str) -> str | None:
    """The commit `ref` names, or None when it names none."""
    out = run_git(git_dir, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
    return out.strip() or None


def is_ancestor(git_dir: Path | str, a: str, b: str) -> bool:
    """Whether commit `a` is an ancestor of (or equal to) commit `b`."""
    return run_raw(git_dir, ("merge-base", "--is-ancestor", a, b)).returncode == 0


def release_tags(git_dir: Path | str, prefix: str) -> dict[int, str]:
    """serial -> full ref name, for release tags under `prefix` (e.g. refs/kb/tags/)."""
    out = run_git(git_dir, "for-each-ref", "--format=%(refname)", prefix)
    tags: dict[int, str] = {}
    for ref in out.split():
        serial = parse_serial(ref)
        if serial is not None:
            tags[serial] = ref
    return tags


def release_tag_targets(git_dir: Path | str, prefix: str) -> dict[int, tuple[str, str]]:
    """serial -> (the tag ref's value, the commit it names), for release tags under
    `prefix`; an annotated tag's value is the tag object, its commit the object it peels to."""
    out = run_git(git_dir, "for-each-ref", "--format=%(refname) %(objectname) %(*objectname)",
                  prefix)
    tags: dict[int, tuple[str, str]] = {}
    for line in out.split("\n"):
        parts = line.split(" ")
        serial = parse_serial(parts[0]) if len(parts) == 3 else None
        if serial is not None:
            tags[serial] = (parts[1], parts[2] or parts[1])
    return tags


def update_refs(git_dir: Path | str, commands: Sequence[str], message: str,
                error: type[KbError] = ReleaseError) -> None:
    """Apply ref `commands` (``update-ref --stdin`` lines: ``create REF NEW``, ``update REF
    NEW OLD``, ``delete REF OLD``) as one transaction: every ref is locked and checked
    against its expected old value before any moves, so a failure or a kill leaves all of
    them as they were, and a concurrent writer makes the whole transaction fail."""
    script = "".join(f"{c}\n" for c in ("start", *commands, "prepare", "commit"))
    run_git(git_dir, "update-ref", "-m", message, "--stdin", stdin=script.encode(), error=error)


def absolute_git_dir(repo: Path) -> Path:
    """The git directory of a work tree (``repo/.git``) or of a bare repository."""
    out = run_git(repo / ".git" if (repo / ".git").exists() else repo,
                  "rev-parse", "--absolute-git-dir")
    return Path(out.strip())


def find_git_dir(root: Path) -> Path:
    """The git directory of the repository holding `root` (searching parent directories)."""
    proc = run_plain("-C", str(root), "rev-parse", "--absolute-git-dir")
    if proc.returncode != 0:
        raise ReleaseError("not inside a Git repository (kb release records releases in Git)",
                           path=str(root))
    return Path(proc.stdout.decode(errors="replace").strip())


@dataclass(frozen=True)
class TreeEntry:
    """One entry of ``git ls-tree -r -l``: mode (``100644``, ``120000`` ...), object type
    (``blob``, ``commit`` for a submodule), object id, size (None for a submodule), path."""

    mode: str
    kind: str
    oid: str
    size: int | None
    path: str


def ls_tree(git_dir: Path | str, rev: str, paths: Sequence[str] = (), *,
            recursive: bool = True, error: type[KbError] = SyncError) -> list[TreeEntry]:
    """Every entry of the tree of `rev` (recursively; or only the top-level `paths`, each
    that name alone: `:x` is not `x`)."""
    args = ("ls-tree", "-l", "-z", "--full-tree", *(("-r",) if recursive else ()), rev,
            *(("--", *map(top_literal, paths)) if paths else ()))
    proc = run_raw(git_dir, args)
    if proc.returncode != 0:
        run_git(git_dir, *args, error=error)  # raises with git's message
    entries = []
    for rec in proc.stdout.split(b"\0"):
        if not rec:
            continue
        meta, _, raw = rec.partition(b"\t")
        mode, kind, oid, size = meta.decode("ascii", "replace").split()
        entries.append(TreeEntry(mode, kind, oid, None if size == "-" else int(size),
                                 raw.decode("utf-8", "surrogateescape")))
    return entries


class BlobReader:
    """One ``git cat-file --batch`` process reading blobs one after another, each in chunks
    of at most 1 MiB; an object that is not a blob of the size the caller expects is an
    error (raised before any of its bytes are read). Used as a context manager: git starts
    on entering it, as every git of shipping does (`kbtools.ship.gitrun.started`: Ctrl-C and
    SIGTERM held until the process is known, so one arriving as it starts, or anywhere in
    the block, kills it), and is killed on leaving it."""

    def __init__(self, git_dir: Path | str, error: type[KbError] = SyncError):
        self.error = error
        self.argv = ["git", *PINNED_ARGS, f"--git-dir={git_dir}", "cat-file", "--batch"]
        self._stack = contextlib.ExitStack()
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> BlobReader:
        try:
            self._proc = self._stack.enter_context(
                started(self.argv, shipping_env(), stderr=subprocess.DEVNULL))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:  # killed, not waited for: it may be mid-blob
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        self._stack.close()  # closes its pipes and reaps it

    @property
    def proc(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            raise RuntimeError("BlobReader used outside its `with` block")
        return self._proc

    def chunks(self, oid: str, size: int) -> Iterator[bytes]:
        """The content of blob `oid` (of `size` bytes); consume it before the next call."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"{oid}\n".encode())
        stdin.flush()
        header = stdout.readline().decode("ascii", "replace").split()
        if header[1:] != ["blob", str(size)]:
            raise self.error(f"git object {oid} is {' '.join(header[1:]) or 'unreadable'}, "
                             f"not a blob of {size} bytes")
        left = size
        while left:
            block = stdout.read(min(left, 1 << 20))
            if not block:
                raise self.error(f"git object {oid} was cut short")
            left -= len(block)
            yield block
        stdout.read(1)  # the newline after each object


def read_blobs(git_dir: Path | str, wanted: Sequence[tuple[str, int]], *,
               error: type[KbError] = SyncError) -> list[bytes]:
    """The contents of (small) blobs (object id, expected size), in order."""
    with BlobReader(git_dir, error) as reader:
        return [b"".join(reader.chunks(oid, size)) for oid, size in wanted]


def first_parent_commits(git_dir: Path | str, rev: str) -> list[str]:
    """`rev` and its first-parent ancestors present here, newest first."""
    out = run_git(git_dir, "rev-list", "--first-parent", rev, error=SyncError, check=False)
    return out.split()


def object_sizes(git_dir: Path | str, names: Sequence[str]) -> list[tuple[str, str, int] | None]:
    """(object id, type, size) of each object name (``COMMIT:path``…), None for one that is
    missing: one ``git cat-file --batch-check`` for all of them."""
    if not names:
        return []
    out = run_git(git_dir, "cat-file", "--batch-check", error=SyncError,
                  stdin="".join(f"{n}\n" for n in names).encode())
    found: list[tuple[str, str, int] | None] = []
    for line in out.splitlines():
        parts = line.split()
        ok = len(parts) == 3 and parts[2].isdigit()
        found.append((parts[0], parts[1], int(parts[2])) if ok else None)
    if len(found) != len(names):
        raise SyncError(f"git cat-file --batch-check answered {len(found)} of {len(names)} "
                        "objects", key="sync_git_failed")
    return found


def compact(git_dir: Path | str) -> None:
    """Repack a repository that many fetches left as many packs, when git's own rule says so
    (`git gc --auto`: past ``gc.autoPackLimit`` packs, 50 by default), in the foreground:
    the caller holds the lock of the directory, and nothing of git may run on there after
    it returns (a fetch would otherwise start this gc detached, in the background)."""
    run_git(git_dir, "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet", error=SyncError)


def missing_objects(git_dir: Path | str, start: str) -> int:
    """How many objects reachable from `start` (a tree: its files; a commit: its history
    too) the repository lacks (a partial clone's), counted without fetching any."""
    listed = run_git(git_dir, "rev-list", "--objects", "--missing=print", start,
                     check=False, error=SyncError)
    return sum(1 for line in listed.splitlines() if line.startswith("?"))


def read_blob(git_dir: Path | str, commit: str, path: str) -> bytes | None:
    """The bytes of `path` in the tree of `commit`, or None when the tree has no such file."""
    proc = run_raw(git_dir, ("cat-file", "blob", f"{commit}:{path}"))
    return proc.stdout if proc.returncode == 0 else None


# --- what a source offers --------------------------------------------------------------

@dataclass(frozen=True)
class SourceRefs:
    """What a source offers: branch tip and release tags (serial -> (ref at source, sha));
    `not_tags`: its refs named as release tags are, that are none (`tag_form_problem`);
    `branches`: the names of its branches (said when the artifacts branch is not one)."""
    branch_ref: str | None
    tags: dict[int, tuple[str, str]]
    not_tags: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()
    moved_to: str | None = None  # where an http(s) source redirected the listing


IGNORED_SHOWN = 5  # refs named as release tags that are none, warned of one by one


def ignored_tags(source: str, refs: SourceRefs) -> tuple[str, ...]:
    """A warning per ref of `source` named as a release tag is that is none (``kb-r03``), the
    first `IGNORED_SHOWN` of them, then how many more. The names are the source's: each
    warning is one printable line (`one_line`: a ref named with escape sequences or a bell,
    which a hand-made bundle or a hostile server may list, is shown escaped, never obeyed
    by the operator's terminal), and a source listing thousands of them does not flood it."""
    shown = [_one_line_keyed(f"{source}: {ref} ignored: {tag_form_problem(ref)}",
                             "warn_ignored_tag_meant" if _meant(ref) else "warn_ignored_tag",
                             {"source": source, "ref": ref, "name": ref.rsplit("/", 1)[-1],
                              "meant": _meant(ref)})
             for ref in refs.not_tags[:IGNORED_SHOWN]]
    more = len(refs.not_tags) - IGNORED_SHOWN
    if more > 0:
        shown.append(_one_line_keyed(f"{source}: {plural(more, 'more ref')} named as release "
                                     "tags ignored (not release tags)", "warn_ignored_more",
                                     {"source": source, "n": str(more)}))
    return tuple(shown)


def _one_line_keyed(text: str, key: str, values: dict[str, str]) -> Keyed:
    """`text`, `Keyed`, it and its values each one printable line (`one_line`): a
    Chinese status says the source's names as safely as the English one."""
    return Keyed(one_line(text), key, {k: one_line(v) for k, v in values.items()})


def _meant(ref: str) -> str:
    """The release tag a ref that is none means (``kb-r03``: kb-r3, as `tag_form_problem`
    says), or ""."""
    digits = ref.rsplit("/", 1)[-1][len(TAG_PREFIX):]
    return tag_name(int(digits)) if digits.isascii() and digits.isdigit() and int(digits) > 0 \
        else ""


def is_bundle(source: str) -> bool:
    """Whether `source` names a git bundle file (rather than a repository)."""
    p = Path(source)
    if "://" in source or not p.is_file():
        return False
    with p.open("rb") as fh:
        head = fh.read(16)
    return head.startswith((b"# v2 git bundle", b"# v3 git bundle"))


BUNDLE_CHECK_DIR = "kb-bundle-check"  # under the git dir: the scratch objects of check_bundle


def check_bundle(git_dir: Path, bundle: str) -> None:
    """Check every object of `bundle` as ``fetch.fsckObjects`` checks a fetch's, which git
    (2.39) skips for a bundle: its pack goes through ``index-pack --strict`` into a scratch
    object directory in `git_dir` (whose own objects serve the bases a --since bundle's thin
    pack leaves out), removed afterwards, a killed run's by the next one. Nothing is stored.
    Raises SyncError with git's reason (``error: object <oid>: <msg-id>: ...`` for a
    malformed object)."""
    with open(bundle, "rb") as fh:
        while fh.readline() not in (b"\n", b""):  # the header ends at its empty line
            pass
        os.lseek(fh.fileno(), fh.tell(), os.SEEK_SET)  # the pack, for index-pack's stdin
        with staging_dir(Path(git_dir) / BUNDLE_CHECK_DIR) as scratch:
            try:
                (scratch / "pack").mkdir()
                env = {"GIT_OBJECT_DIRECTORY": str(scratch),
                       "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(Path(git_dir) / "objects")}
                proc = run_plain(f"--git-dir={git_dir}", "index-pack", "--strict", "--stdin",
                                 "--fix-thin", env=env, stdin_file=fh)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode != 0:
        raise SyncError(f"git index-pack failed: {failure_reason(proc)}",
                        key="sync_git_failed")


def _canonical(ref: str) -> str:
    """Bundles made in a knowledge repo carry refs/kb/heads/* and refs/kb/tags/*."""
    return "refs/" + ref[len("refs/kb/"):] if ref.startswith("refs/kb/") else ref


REDIRECTED = "warning: redirecting to "  # git (LC_ALL=C) when an http(s) source redirects


def list_source(git_dir: Path, source: str, branch: str, *,
                timeout: float | None = None, limits: NetLimits | None = None
                ) -> SourceRefs:
    """The artifacts branch and release tags that `source` (remote, path or bundle) offers;
    a remote that lists nothing within `timeout` seconds (default: the `limits`'
    ``list_timeout``) is given up (SyncError). An http(s) source that redirects (it moved,
    and its old address forwards) is named in `SourceRefs.moved_to`."""
    moved_to = None
    if is_bundle(source):
        try:
            run_git(git_dir, "bundle", "verify", source, error=SyncError)
        except SyncError as exc:
            if "prerequisite" in str(exc):
                raise SyncError("bundle was made with --since a release this device does not "
                                "hold; bring a full bundle (kb bundle create OUT)",
                                path=source, key="sync_bundle_partial") from None
            raise SyncError(f"bundle is damaged: {exc}", path=source,
                            key="sync_bundle_damaged") from None
        out = run_git(git_dir, "bundle", "list-heads", source, error=SyncError)
    else:
        try:
            proc = run_git_proc(git_dir, "ls-remote", source, error=SyncError,
                                timeout=timeout, limits=limits)
        except SyncError as exc:  # unreachable, refused, cut off: name the source
            raise SyncError(exc.message, path=source, key=exc.key or "sync_unreachable",
                            values=exc.values) from None
        out = proc.stdout.decode(errors="replace")
        said = proc.stderr.decode(errors="replace").split("\n")
        moved_to = next((line[len(REDIRECTED):].strip() for line in said
                         if line.startswith(REDIRECTED)), None)
    branch_ref = None
    tags: dict[int, tuple[str, str]] = {}
    not_tags: list[str] = []
    branches: list[str] = []
    for line in out.split("\n"):  # git ends lines with \n only; a ref name may hold U+2028
        parts = line.split(None, 1)
        if len(parts) != 2 or parts[1].endswith("^{}"):
            continue
        sha, ref = parts
        canon = _canonical(ref)
        if canon == f"refs/heads/{branch}":
            branch_ref = ref
        elif canon.startswith("refs/heads/"):
            branches.append(canon[len("refs/heads/"):])
        elif canon.startswith(f"refs/tags/{TAG_PREFIX}"):
            serial = parse_serial(canon)
            if serial is not None:
                tags[serial] = (ref, sha)
            elif tag_form_problem(canon):
                not_tags.append(ref)
    return SourceRefs(branch_ref, tags, tuple(not_tags), tuple(branches), moved_to)


def local_repo(remote: str) -> Path | None:
    """The directory of a remote given as a path or a file:// URL (None for others)."""
    if remote.startswith("file://"):
        path = Path(remote[len("file://"):])
    elif "://" in remote or (":" in remote.split("/", 1)[0] and not Path(remote).exists()):
        return None  # a URL or scp-like host:path
    else:
        path = Path(remote)
    return path if path.is_dir() else None


def point_head_at(remote: str, branch: str) -> bool:
    """Make a local bare artifacts repository's HEAD name `branch` when the branch HEAD
    names does not exist (a fresh ``git init --bare`` names master/main), so that a plain
    ``git clone`` checks out the newest release. Returns whether HEAD was changed."""
    repo = local_repo(remote)
    if repo is None:
        return False
    try:
        gd = absolute_git_dir(repo)
    except ReleaseError:
        return False
    head = run_git(gd, "symbolic-ref", "-q", "HEAD", check=False).strip()
    if head == f"refs/heads/{branch}" or rev_parse(gd, "HEAD") is not None:
        return False  # already the branch, or HEAD names something that exists: leave it
    run_git(gd, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    return True


def remote_head(git_dir: Path | str, remote: str, limits: NetLimits | None = None
                ) -> str | None:
    """The ref a remote's HEAD names (``refs/heads/kb-index``), None when unknown; asked
    within `limits` (ReleaseError past them)."""
    out = run_git(git_dir, "ls-remote", "--symref", remote, "HEAD", check=False,
                  limits=limits)
    for line in out.split("\n"):
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            return line[len("ref: "):-len("\tHEAD")]
    return None


def moved_tags(gd: Path, offered: dict[int, tuple[str, str]], held: set[str]
               ) -> dict[str, tuple[str, str]]:
    """The release tags of releases the device holds (installed or served) whose tag at
    the source is another object than the one the device fetched (a force-push): tag ->
    (the object fetched, the source's now)."""
    out = run_git(gd, "for-each-ref", "--format=%(objectname) %(refname)", "refs/tags/",
                  error=SyncError)
    fetched = dict(line.split(" ", 1)[::-1] for line in out.splitlines() if " " in line)
    moved: dict[str, tuple[str, str]] = {}
    for serial, (_, now) in offered.items():
        tag = tag_name(serial)
        had = fetched.get(f"refs/tags/{tag}")
        if tag in held and had is not None and had != now:
            moved[tag] = (had, now)
    return moved


def moved_note(tag: str, had: str, now: str, *, served: bool) -> str:
    """The warning for held release `tag` moved at the source (`moved_tags`)."""
    keeps = "keeps serving" if served else "keeps"
    return Keyed(f"{tag} was moved at the source (its tag names {now[:12]} now, not the "
                 f"{had[:12]} fetched here; a release tag never changes): this device {keeps} "
                 f"the {tag} it verified", "warn_moved_serving" if served else "warn_moved",
                 {"release": tag, "now": now[:12], "had": had[:12]})


def not_following(gd: Path, served: str | None, commit: str, tag: str, branch: str
                  ) -> str | None:
    """Why release `tag` (commit `commit`) may not be installed over `served`, the release
    a device serves, or None: its commit must descend from the one the device fetched for
    `served` (`kb release` only ever adds to the artifacts branch, and a remote's moves
    that are no fast-forward are refused there). A signature names who made a release, not
    of which knowledge repository, so another artifacts repository signed by the same key
    (one CI key for two knowledge bases) would otherwise replace the served knowledge as
    soon as its serial was higher; a branch rewritten under an older release would too.
    None when nothing is served or the served release's tag is not in `gd`."""
    if served is None:
        return None
    had = rev_parse(gd, f"refs/tags/{served}")
    if had is None or is_ancestor(gd, had, commit):
        return None
    return (f"{tag} does not follow {served}, served here: its commit {commit[:12]} does not "
            f"descend from {served}'s {had[:12]} on the {branch} branch (a release of "
            "another artifacts repository signed by the same key, or a rewritten branch)")
