"""`kb release`: record a built dist/ as one commit + annotated tag on the artifacts branch.

Layout of a release commit (tree)::

    manifest.json    the build's manifest, byte for byte
    data/...         the build's release content (index/ is NOT shipped: devices re-derive it)
    release.json     serial, tag, source commit, manifest sha256, created time, signing key id
    release.sig      Ed25519 signature over the exact bytes of release.json (when signed)

In the knowledge repo the branch and tags live under ``refs/kb/heads/<branch>`` and
``refs/kb/tags/kb-r<serial>``: refs that a plain ``git clone``, ``git push --all`` or
``git push --tags`` never carry. Publishing pushes them as ``refs/heads/<branch>`` and
``refs/tags/kb-r<serial>`` to the artifacts remote (kb.toml ``[release] remote``).
The commit is written with plumbing (a temporary index file, ``commit-tree``, ``mktag``),
so the user's working tree, index and HEAD are never touched.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git

from kbtools import __version__
from kbtools.errors import KbError, ReleaseError
from kbtools.index.manifest import (
    DATA_DIR,
    FORMAT_VERSION,
    MANIFEST,
    load_manifest,
    sha256_file,
    verify_files,
)

TAG_PREFIX = "kb-r"
RELEASE_JSON = "release.json"
RELEASE_SIG = "release.sig"
RELEASE_FORMAT = 1
LOCAL_HEADS = "refs/kb/heads/"
LOCAL_TAGS = "refs/kb/tags/"
_TAG_RE = re.compile(rf"^{TAG_PREFIX}(\d+)$")


@dataclass(frozen=True)
class ReleaseInfo:
    tag: str
    serial: int
    commit: str
    source_commit: str
    manifest_sha256: str
    created: str
    new: bool
    pushed_to: str | None
    signed_by: str | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def tag_name(serial: int) -> str:
    return f"{TAG_PREFIX}{serial}"


def parse_serial(tag: str) -> int | None:
    """Serial of a release tag name (``kb-r12`` -> 12), None for other names."""
    m = _TAG_RE.match(tag.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def run_git(git_dir: Path | str, *args: str, env: dict[str, str] | None = None,
            stdin: bytes | None = None, error: type[KbError] = ReleaseError,
            check: bool = True) -> str:
    """Run one git plumbing command against `git_dir`; raise `error` with git's message."""
    cmd = ["git", f"--git-dir={git_dir}", *args]
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=full_env)
    if check and proc.returncode != 0:
        lines = [m.strip() for m in proc.stderr.decode(errors="replace").splitlines()
                 if m.strip()]
        bad = [m for m in lines if m.startswith(("fatal:", "error:"))]
        reason = (bad or lines or [f"exit {proc.returncode}"])[0]
        raise error(f"git {_subcommand(args)} failed: {reason}")
    return proc.stdout.decode(errors="replace")


def _subcommand(args: tuple[str, ...]) -> str:
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a == "-c":
            skip = True
        elif not a.startswith("-"):
            return a
    return "command"


def rev_parse(git_dir: Path | str, ref: str) -> str | None:
    out = run_git(git_dir, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
    return out.strip() or None


def release_tags(git_dir: Path | str, prefix: str) -> dict[int, str]:
    """serial -> full ref name, for release tags under `prefix` (e.g. refs/kb/tags/)."""
    out = run_git(git_dir, "for-each-ref", "--format=%(refname)", prefix)
    tags: dict[int, str] = {}
    for ref in out.split():
        serial = parse_serial(ref)
        if serial is not None:
            tags[serial] = ref
    return tags


def read_release_json(repo: git.Repo, commit: str) -> dict[str, Any] | None:
    try:
        blob = repo.commit(commit).tree / RELEASE_JSON
        return json.loads(blob.data_stream.read())
    except (KeyError, ValueError):
        return None


def unexpected_files(root: Path, manifest: dict[str, Any]) -> list[str]:
    """Files under data/ that the manifest does not list."""
    listed = set(manifest.get("artifacts", {}))
    base = root / DATA_DIR
    found = {p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file()} \
        if base.is_dir() else set()
    return sorted(found - listed)


def open_repo(root: Path) -> git.Repo:
    try:
        return git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ReleaseError("not inside a Git repository (kb release records releases in Git)",
                           path=str(root)) from None


def make_release(root: Path, dist: Path, *, branch: str = "kb-index", remote: str | None = None,
                 sign_key: Path | None = None, now: datetime | None = None) -> ReleaseInfo:
    """Record `dist` as the next release; a no-op when the newest release already holds it."""
    manifest = load_manifest(dist)
    problems = verify_files(dist, manifest, derived=False)
    problems += [f"{p}: not listed in manifest" for p in unexpected_files(dist, manifest)]
    if problems:
        raise ReleaseError(f"dist does not match its manifest ({len(problems)} problems, "
                           f"first: {problems[0]}); rebuild with `kb build`", path=str(dist))
    private = None
    if sign_key is not None:
        from kbtools.ship.signing import load_private
        private = load_private(sign_key)
    repo = open_repo(root)
    gd = Path(repo.git_dir)
    local_head = LOCAL_HEADS + branch
    if remote:
        _fetch_published(gd, remote, branch)
    parent = rev_parse(gd, local_head)
    tags = release_tags(gd, LOCAL_TAGS)
    mhash = sha256_file(dist / MANIFEST)
    source = manifest["source"]
    if parent:
        prev = read_release_json(repo, parent) or {}
        if prev.get("manifest_sha256") == mhash and \
                prev.get("source", {}).get("commit") == source.get("commit"):
            info = _info(prev, parent, new=False, pushed=None)
            if remote:
                _push(gd, remote, branch, LOCAL_TAGS + info.tag)
                info = _info(prev, parent, new=False, pushed=remote)
            return info
    prev_serial = (read_release_json(repo, parent) or {}).get("serial", 0) if parent else 0
    serial = max([int(prev_serial), *tags]) + 1
    tag = tag_name(serial)
    created = (now or datetime.now(UTC)).replace(microsecond=0).isoformat()
    rel = {
        "release_format": RELEASE_FORMAT, "format_version": FORMAT_VERSION, "tag": tag,
        "serial": serial, "branch": branch, "source": source, "manifest_sha256": mhash,
        "created": created, "kbtools_version": __version__,
        "signing_key": None,
    }
    sig_bytes = None
    if private is not None:
        from kbtools.ship.signing import key_id, sign
        rel["signing_key"] = key_id(private.public_key())
    rel_bytes = (json.dumps(rel, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    if private is not None:
        sig_bytes = sign(private, rel_bytes)
    tree = _write_tree(gd, dist, manifest, rel_bytes, sig_bytes)
    msg = f"kb release {tag}: source {source['commit']}, manifest sha256 {mhash}\n"
    commit = run_git(gd, "commit-tree", tree, *(["-p", parent] if parent else []),
                     "-m", msg).strip()
    tagger = run_git(gd, "var", "GIT_COMMITTER_IDENT").strip()
    tag_text = (f"object {commit}\ntype commit\ntag {tag}\ntagger {tagger}\n\n"
                f"kb release {serial}\n\nsource-commit: {source['commit']}\n"
                f"manifest-sha256: {mhash}\n")
    tag_obj = run_git(gd, "mktag", stdin=tag_text.encode()).strip()
    run_git(gd, "update-ref", LOCAL_TAGS + tag, tag_obj, "")
    run_git(gd, "update-ref", "-m", f"kb release {tag}", local_head, commit, parent or "")
    pushed = None
    if remote:
        _push(gd, remote, branch, LOCAL_TAGS + tag)
        pushed = remote
    return _info(rel, commit, new=True, pushed=pushed)


def _info(rel: dict[str, Any], commit: str, *, new: bool, pushed: str | None) -> ReleaseInfo:
    return ReleaseInfo(tag=rel["tag"], serial=int(rel["serial"]), commit=commit,
                       source_commit=rel["source"]["commit"],
                       manifest_sha256=rel["manifest_sha256"], created=rel["created"],
                       new=new, pushed_to=pushed, signed_by=rel.get("signing_key"))


def _write_tree(gd: Path, dist: Path, manifest: dict[str, Any], rel_bytes: bytes,
                sig_bytes: bytes | None) -> str:
    with tempfile.TemporaryDirectory(prefix="kb-release-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        paths = [MANIFEST] + ([DATA_DIR] if (dist / DATA_DIR).is_dir() else [])
        run_git(gd, "-c", "core.autocrlf=false", "-c", "core.safecrlf=false",
                f"--work-tree={dist}", "add", "-f", "--", *paths, env=env)
        extra = {RELEASE_JSON: rel_bytes, **({RELEASE_SIG: sig_bytes} if sig_bytes else {})}
        for name, data in extra.items():
            sha = run_git(gd, "hash-object", "-w", "--stdin", stdin=data).strip()
            run_git(gd, "update-index", "--add", "--cacheinfo", f"100644,{sha},{name}", env=env)
        tree = run_git(gd, "write-tree", env=env).strip()
    listed = set(run_git(gd, "ls-tree", "-r", "--name-only", "-z", tree).split("\0")) - {""}
    wanted = {MANIFEST, *manifest.get("artifacts", {}), *extra}
    if listed != wanted:
        diff = sorted(listed ^ wanted)
        raise ReleaseError(f"release tree does not match the manifest (e.g. {diff[0]}); "
                           "check .gitattributes filters", path=str(dist))
    return tree


def _remote_refs(gd: Path, remote: str) -> dict[str, str]:
    out = run_git(gd, "ls-remote", remote)
    refs = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        refs[ref] = sha
    return refs


def _fetch_published(gd: Path, remote: str, branch: str) -> None:
    """Bring the remote's artifacts branch and release tags into refs/kb/*."""
    refs = _remote_refs(gd, remote)
    if f"refs/heads/{branch}" not in refs:
        return
    staging = f"refs/kb/remote/{branch}"
    run_git(gd, "fetch", "-q", "--no-tags", remote, f"+refs/heads/{branch}:{staging}",
            f"+refs/tags/{TAG_PREFIX}*:{LOCAL_TAGS}{TAG_PREFIX}*")
    theirs = rev_parse(gd, staging)
    ours = rev_parse(gd, LOCAL_HEADS + branch)
    if theirs is None or theirs == ours:
        return
    if ours is None or _is_ancestor(gd, ours, theirs):
        run_git(gd, "update-ref", LOCAL_HEADS + branch, theirs)
    elif not _is_ancestor(gd, theirs, ours):
        raise ReleaseError(f"local {branch} and {remote}'s {branch} have diverged; "
                           f"inspect {LOCAL_HEADS}{branch} and {staging}")


def _is_ancestor(gd: Path, a: str, b: str) -> bool:
    proc = subprocess.run(["git", f"--git-dir={gd}", "merge-base", "--is-ancestor", a, b],
                          capture_output=True)
    return proc.returncode == 0


def _push(gd: Path, remote: str, branch: str, tag_ref: str) -> None:
    tag = tag_ref.rsplit("/", 1)[-1]
    run_git(gd, "push", "-q", remote, f"{LOCAL_HEADS}{branch}:refs/heads/{branch}",
            f"{tag_ref}:refs/tags/{tag}")


def list_local(root: Path, branch: str = "kb-index") -> list[dict[str, Any]]:
    """Releases recorded in the knowledge repo (newest first)."""
    repo = open_repo(root)
    gd = Path(repo.git_dir)
    out = []
    for serial, ref in sorted(release_tags(gd, LOCAL_TAGS).items(), reverse=True):
        commit = rev_parse(gd, ref)
        rel = read_release_json(repo, commit) if commit else None
        out.append({"tag": ref.rsplit("/", 1)[-1], "serial": serial, "commit": commit,
                    "source_commit": (rel or {}).get("source", {}).get("commit"),
                    "created": (rel or {}).get("created")})
    return out
