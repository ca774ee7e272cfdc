"""`kb sync`: fetch the newest release into a device directory, verify it, switch to it.

Order of work (the served release changes only in the last step, by one rename):

1. lock the device dir, drop leftovers of interrupted syncs;
2. list the source's refs (remote, path or bundle file) and pick the highest release serial
   (skipping tags the operator rolled back from); refuse a serial below the highest ever
   accepted (a downgrade) and do nothing when it is the one already served;
3. fetch the artifacts branch and that one tag into DIR/repo.git (depth 1 on first sync);
4. check the tag: annotated, on the artifacts branch, its message naming the manifest hash;
5. export the tree into releases/<tag>.staging and verify it: release.json serial and tag,
   signature (required when trusted keys exist), manifest hash, manifest schema and format
   version, every artifact's sha256/size and no unlisted files;
6. derive index/ with `kbtools.build.pipeline.materialize` and check it against manifest["derived"];
7. rename staging -> releases/<tag>, replace the `current` symlink, prune old releases.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.errors import IndexLoadError, KbError, SyncError
from kbtools.index.manifest import MANIFEST, load_manifest, sha256_file, verify_files
from kbtools.ship import device as dev
from kbtools.ship.release import (
    RELEASE_JSON,
    RELEASE_SIG,
    TAG_PREFIX,
    parse_serial,
    rev_parse,
    run_git,
    unexpected_files,
)


@dataclass(frozen=True)
class SyncResult:
    tag: str
    serial: int
    previous: str | None
    changed: bool
    source: str
    signed_by: str | None = None
    fetched_bytes: int = 0
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "warnings": list(self.warnings)}


@dataclass(frozen=True)
class SourceRefs:
    """What a source offers: branch tip and release tags (serial -> (ref at source, sha))."""
    branch_ref: str | None
    tags: dict[int, tuple[str, str]]


def is_bundle(source: str) -> bool:
    p = Path(source)
    if "://" in source or not p.is_file():
        return False
    with p.open("rb") as fh:
        head = fh.read(16)
    return head.startswith((b"# v2 git bundle", b"# v3 git bundle"))


def normalize_source(source: str) -> str:
    p = Path(source)
    if "://" not in source and p.exists():
        return str(p.resolve())
    return source


def _canonical(ref: str) -> str:
    """Bundles made in a knowledge repo carry refs/kb/heads/* and refs/kb/tags/*."""
    return "refs/" + ref[len("refs/kb/"):] if ref.startswith("refs/kb/") else ref


def list_source(gd: Path, source: str, branch: str) -> SourceRefs:
    if is_bundle(source):
        try:
            run_git(gd, "bundle", "verify", source, error=SyncError)
        except SyncError as exc:
            if "prerequisite" in str(exc):
                raise SyncError("bundle was made with --since a release this device does not "
                                "hold; bring a full bundle (kb bundle create OUT)",
                                path=source) from None
            raise SyncError(f"bundle is damaged: {exc}", path=source) from None
        out = run_git(gd, "bundle", "list-heads", source, error=SyncError)
    else:
        out = run_git(gd, "ls-remote", source, error=SyncError)
    branch_ref = None
    tags: dict[int, tuple[str, str]] = {}
    for line in out.splitlines():
        parts = line.split(None, 1)
        if len(parts) != 2 or parts[1].endswith("^{}"):
            continue
        sha, ref = parts
        canon = _canonical(ref)
        if canon == f"refs/heads/{branch}":
            branch_ref = ref
        elif canon.startswith(f"refs/tags/{TAG_PREFIX}"):
            serial = parse_serial(canon)
            if serial is not None:
                tags[serial] = (ref, sha)
    return SourceRefs(branch_ref, tags)


def _pack_bytes(gd: Path) -> int:
    """Bytes of packs and loose objects in a repo (fetch keeps packs: unpackLimit=1)."""
    objects = gd / "objects"
    packs = sum(p.stat().st_size for p in (objects / "pack").glob("*.pack"))
    loose = sum(p.stat().st_size for p in objects.glob("[0-9a-f][0-9a-f]/*"))
    return packs + loose


def fetch(gd: Path, source: str, branch_ref: str, branch: str, tag_ref: str, tag: str) -> int:
    """Fetch branch + one tag; returns bytes added to the device's object store."""
    before = _pack_bytes(gd)
    specs = [f"+{branch_ref}:refs/heads/{branch}", f"+{tag_ref}:refs/tags/{tag}"]
    args = ["-c", "fetch.unpackLimit=1", "fetch", "-q", "--no-tags", "--no-write-fetch-head"]
    first = rev_parse(gd, f"refs/heads/{branch}") is None and not is_bundle(source)
    try:
        run_git(gd, *args, *(["--depth=1"] if first else []), source, *specs, error=SyncError)
    except SyncError as exc:
        if is_bundle(source):
            raise SyncError(f"bundle is damaged or truncated: {exc}", path=source) from None
        if not first or "shallow" not in str(exc):
            raise
        run_git(gd, *args, source, *specs, error=SyncError)  # dumb HTTP cannot do shallow
    return max(0, _pack_bytes(gd) - before)


def check_tag(gd: Path, source: str, branch: str, tag: str) -> tuple[str, str]:
    """The tag must be annotated and point at a commit on the artifacts branch."""
    kind = run_git(gd, "cat-file", "-t", f"refs/tags/{tag}", error=SyncError).strip()
    if kind != "tag":
        raise SyncError(f"{tag} is not an annotated release tag", path=source)
    commit = rev_parse(gd, f"refs/tags/{tag}")
    tip = rev_parse(gd, f"refs/heads/{branch}")
    if commit is None or tip is None:
        raise SyncError(f"{tag} or branch {branch} missing after fetch", path=source)
    if commit != tip and not _ancestor(gd, commit, tip):
        if (gd / "shallow").exists():
            run_git(gd, "fetch", "-q", "--no-tags", "--unshallow", source,
                    f"+refs/heads/{branch}:refs/heads/{branch}", error=SyncError, check=False)
        if not _ancestor(gd, commit, tip):
            raise SyncError(f"{tag} points at commit {commit[:12]} which is not on the "
                            f"{branch} branch; refusing it", path=source)
    body = run_git(gd, "cat-file", "tag", f"refs/tags/{tag}", error=SyncError)
    mhash = ""
    for line in body.splitlines():
        if line.startswith("manifest-sha256:"):
            mhash = line.split(":", 1)[1].strip()
    return commit, mhash


def _ancestor(gd: Path, a: str, b: str) -> bool:
    proc = subprocess.run(["git", f"--git-dir={gd}", "merge-base", "--is-ancestor", a, b],
                          capture_output=True)
    return proc.returncode == 0


def export(gd: Path, commit: str, staging: Path) -> None:
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    index = staging.parent / f".{staging.name}.index"
    env = {"GIT_INDEX_FILE": str(index)}
    for stale in (index, index.with_name(index.name + ".lock")):  # from a killed sync
        stale.unlink(missing_ok=True)
    try:
        run_git(gd, "read-tree", f"{commit}^{{tree}}", env=env, error=SyncError)
        run_git(gd, f"--work-tree={staging}", "checkout-index", "-a", "-f", env=env,
                error=SyncError)
    finally:
        index.unlink(missing_ok=True)


def verify_release(staging: Path, tag: str, serial: int, tag_mhash: str,
                   keys: list[Any], materialize: Any = None) -> dict[str, Any]:
    """All checks on an exported release; returns what was verified (verified.json)."""
    from kbtools.ship.signing import verify

    where = f"{tag}"
    try:
        rel_bytes = (staging / RELEASE_JSON).read_bytes()
        rel = json.loads(rel_bytes)
    except (OSError, ValueError) as exc:
        raise SyncError(f"release.json missing or unreadable: {exc}", path=where) from None
    if rel.get("tag") != tag or rel.get("serial") != serial:
        raise SyncError(f"release.json names {rel.get('tag')} (serial {rel.get('serial')}), "
                        f"not the tag it was fetched under", path=where)
    signed_by = None
    if keys:
        sig_path = staging / RELEASE_SIG
        signed_by = verify(rel_bytes, sig_path.read_bytes() if sig_path.is_file() else None,
                           keys, where=where)
    if not (staging / MANIFEST).is_file():
        raise SyncError("manifest.json missing", path=where)
    mhash = sha256_file(staging / MANIFEST)
    if mhash != rel.get("manifest_sha256") or (tag_mhash and tag_mhash != mhash):
        raise SyncError("manifest.json does not match the hash named by release.json/tag",
                        path=where)
    try:
        manifest = load_manifest(staging)
    except IndexLoadError as exc:
        raise SyncError(f"incompatible or invalid manifest: {exc.message}", path=where) from None
    problems = verify_files(staging, manifest, derived=False)
    problems += [f"{p}: not listed in manifest" for p in unexpected_files(staging, manifest)]
    if problems:
        raise SyncError(f"artifacts do not match the manifest ({len(problems)} problems, "
                        f"first: {problems[0]})", path=where)
    check_models(manifest, where)
    if manifest.get("derived"):
        (materialize or _materializer())(staging)
        problems = verify_files(staging, manifest, derived=True)
        if problems:
            raise SyncError(f"derived index does not match the manifest ({len(problems)} "
                            f"problems, first: {problems[0]})", path=where)
    return {"tag": tag, "serial": serial, "signed_by": signed_by,
            "signature": "verified" if signed_by else "not required (no trusted keys)",
            "manifest_sha256": mhash, "source_commit": manifest["source"]["commit"],
            "created": rel.get("created"), "artifacts": len(manifest.get("artifacts", {})),
            "derived": len(manifest.get("derived", {})),
            "verified_at": datetime.now(UTC).replace(microsecond=0).isoformat()}


def check_models(manifest: dict[str, Any], where: str) -> None:
    """The device must have the exact embedding models the release's vectors came from."""
    from kbtools.embed.registry import get_embedder
    from kbtools.errors import ModelError

    for key, meta in sorted(manifest.get("models", {}).items()):
        try:
            local = get_embedder(key).fingerprint()
        except ModelError as exc:
            raise SyncError(f"release needs embedding model {key!r}, not available here: "
                            f"{exc.message}", path=where) from None
        if local != meta["fingerprint"]:
            raise SyncError(f"release vectors come from model {meta['fingerprint']} but this "
                            f"device has {local}; update kbtools/the model first", path=where)


def _materializer() -> Any:
    try:
        from kbtools.build.pipeline import materialize
    except ImportError:  # the build module may keep it in kbtools.index.materialize only
        from kbtools.index.materialize import materialize
    return materialize


def trusted_keys(device: Path, extra: list[Path]) -> list[Any]:
    from kbtools.ship.signing import load_public

    paths = list(extra) + sorted((device / dev.TRUSTED).glob("*.pub"))
    return [load_public(p) for p in paths]


def sync(source: str, device: Path, *, trusted: list[Path] | None = None,
         branch: str = "kb-index", keep: int = 5, max_age_days: int = 30,
         materialize: Any = None) -> SyncResult:
    """Bring `device` to the newest verified release offered by `source`."""
    source = normalize_source(source)
    device.mkdir(parents=True, exist_ok=True)
    device = device.resolve()
    with dev.locked(device):
        state = dev.read_state(device)
        try:
            result = _sync_locked(source, device, state, trusted or [], branch, keep,
                                  max_age_days, materialize)
        except (KbError, OSError) as exc:
            if isinstance(exc, OSError):
                exc = SyncError(f"cannot write {exc.filename or 'device files'}: "
                                f"{exc.strerror or exc}; the served release is unchanged",
                                path=str(device))
            dev.clean_staging(device)
            state["last_sync"] = {"ok": False, "source": source, "error": str(exc),
                                  "at": _now()}
            try:
                dev.write_state(device, state)
            except OSError:
                pass
            raise exc from None
        state["last_sync"] = {"ok": True, "source": source, "tag": result.tag,
                              "changed": result.changed, "at": _now(),
                              "warnings": list(result.warnings)}
        state["source"] = source
        state["highest_serial"] = max(result.serial, int(state.get("highest_serial", 0)))
        dev.write_state(device, state)
        return result


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _sync_locked(source: str, device: Path, state: dict[str, Any], extra_keys: list[Path],
                 branch: str, keep: int, max_age_days: int, materialize: Any) -> SyncResult:
    dev.clean_staging(device)
    gd = device / dev.REPO
    if not (gd / "HEAD").is_file():
        run_git(gd, "init", "-q", "--bare", error=SyncError)
    keys = trusted_keys(device, extra_keys)
    refs = list_source(gd, source, branch)
    if refs.branch_ref is None:
        raise SyncError(f"no {branch} branch at the source (is it an artifacts repo?)",
                        path=source)
    rolled_back = set(state.get("rolled_back", []))
    offered = {s: r for s, r in refs.tags.items() if f"{TAG_PREFIX}{s}" not in rolled_back}
    if not offered:
        raise SyncError("the source has no release tags to serve", path=source)
    serial = max(offered)
    tag = f"{TAG_PREFIX}{serial}"
    current = dev.served_tag(device)
    cur_serial = parse_serial(current) if current else None
    floor = max(int(state.get("highest_serial", 0)), cur_serial or 0)
    if current == tag:
        return SyncResult(tag, serial, current, False, source, warnings=_age_warn(
            dev.served_release(device), max_age_days))
    if serial < floor:
        raise SyncError(f"newest release at the source is {tag}, older than "
                        f"{TAG_PREFIX}{floor} already accepted; refusing a downgrade "
                        "(use `kb rollback` to serve an older local release)", path=source)
    fetched = 0
    final = device / dev.RELEASES / tag
    signed_by = None
    if not final.is_dir():
        fetched = fetch(gd, source, refs.branch_ref, branch, offered[serial][0], tag)
        commit, tag_mhash = check_tag(gd, source, branch, tag)
        staging = device / dev.RELEASES / f"{tag}{dev.STAGING_SUFFIX}"
        export(gd, commit, staging)
        verified = verify_release(staging, tag, serial, tag_mhash, keys, materialize)
        signed_by = verified["signed_by"]
        (staging / dev.VERIFIED).write_text(json.dumps(verified, indent=1) + "\n")
        dev.fsync_dir(staging)
        staging.rename(final)
        dev.fsync_dir(final.parent)
    dev.switch_to(device, tag)
    dev.prune(device, keep, {t: parse_serial(t) or -1 for t in dev.release_dirs(device)})
    return SyncResult(tag, serial, current, True, source, signed_by, fetched,
                      _age_warn(final, max_age_days))


def _age_warn(release: Path | None, max_age_days: int) -> tuple[str, ...]:
    if release is None:
        return ()
    created = dev.read_json(release / RELEASE_JSON).get("created")
    if not created:
        return ()
    age = datetime.now(UTC) - datetime.fromisoformat(created)
    if age.days > max_age_days:
        return (f"release {release.name} is {age.days} days old (more than "
                f"release.max_age_days = {max_age_days}); is the source still updated?",)
    return ()
