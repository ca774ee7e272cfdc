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
6. derive index/ with `kbtools.index.materialize.materialize` and check it against
   manifest["derived"];
7. rename staging -> releases/<tag>, replace the `current` symlink, prune old releases.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.config import Config
from kbtools.embed.registry import get_embedder
from kbtools.errors import IndexLoadError, KbError, ModelError, SyncError, UsageError
from kbtools.index.layout import DeviceLayout, ReleaseLayout
from kbtools.index.manifest import load_manifest, sha256_file, verify_files
from kbtools.index.materialize import materialize
from kbtools.ship import device as dev
from kbtools.ship.git import (
    is_ancestor,
    is_bundle,
    list_source,
    parse_serial,
    rev_parse,
    run_git,
    tag_name,
)
from kbtools.ship.release import release_settings, unexpected_files
from kbtools.ship.signing import PublicKey, load_public, verify


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


def normalize_source(source: str) -> str:
    p = Path(source)
    if "://" not in source and p.exists():
        return str(p.resolve())
    return source


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
    if commit != tip and not is_ancestor(gd, commit, tip):
        if (gd / "shallow").exists():
            run_git(gd, "fetch", "-q", "--no-tags", "--unshallow", source,
                    f"+refs/heads/{branch}:refs/heads/{branch}", error=SyncError, check=False)
        if not is_ancestor(gd, commit, tip):
            raise SyncError(f"{tag} points at commit {commit[:12]} which is not on the "
                            f"{branch} branch; refusing it", path=source)
    body = run_git(gd, "cat-file", "tag", f"refs/tags/{tag}", error=SyncError)
    mhash = ""
    for line in body.split("\n"):  # git's lines: a tagger name may hold U+2028
        if line.startswith("manifest-sha256:"):
            mhash = line.split(":", 1)[1].strip()
    return commit, mhash


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
                   keys: list[PublicKey]) -> dict[str, Any]:
    """All checks on an exported release; returns what was verified (verified.json)."""
    where = tag
    release = ReleaseLayout(staging)
    try:
        rel_bytes = release.release_json.read_bytes()
        rel = json.loads(rel_bytes)
    except (OSError, ValueError) as exc:
        raise SyncError(f"release.json missing or unreadable: {exc}", path=where) from None
    if rel.get("tag") != tag or rel.get("serial") != serial:
        raise SyncError(f"release.json names {rel.get('tag')} (serial {rel.get('serial')}), "
                        f"not the tag it was fetched under", path=where)
    signed_by = None
    if keys:
        sig_path = release.release_sig
        signed_by = verify(rel_bytes, sig_path.read_bytes() if sig_path.is_file() else None,
                           keys, where=where)
    if not release.is_release():
        raise SyncError("manifest.json missing", path=where)
    mhash = sha256_file(release.manifest)
    if mhash != rel.get("manifest_sha256") or (tag_mhash and tag_mhash != mhash):
        raise SyncError("manifest.json does not match the hash named by release.json/tag",
                        path=where)
    manifest = _verified_manifest(staging, where)
    return {"tag": tag, "serial": serial, "signed_by": signed_by,
            "signature": "verified" if signed_by else "not required (no trusted keys)",
            "manifest_sha256": mhash, "source_commit": manifest["source"]["commit"],
            "created": rel.get("created"), "artifacts": len(manifest.get("artifacts", {})),
            "derived": len(manifest.get("derived", {})),
            "verified_at": datetime.now(UTC).replace(microsecond=0).isoformat()}


def _verified_manifest(staging: Path, where: str) -> dict[str, Any]:
    """Load the manifest, check data/ against it, the models, and the re-derived index/."""
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
        materialize(staging)
        problems = verify_files(staging, manifest, derived=True)
        if problems:
            raise SyncError(f"derived index does not match the manifest ({len(problems)} "
                            f"problems, first: {problems[0]})", path=where)
    return manifest


def check_models(manifest: dict[str, Any], where: str) -> None:
    """The device must have the exact embedding models the release's vectors came from."""
    for key, meta in sorted(manifest.get("models", {}).items()):
        try:
            local = get_embedder(key).fingerprint()
        except ModelError as exc:
            raise SyncError(f"release needs embedding model {key!r}, not available here: "
                            f"{exc.message}", path=where) from None
        if local != meta["fingerprint"]:
            raise SyncError(f"release vectors come from model {meta['fingerprint']} but this "
                            f"device has {local}; update kbtools/the model first", path=where)


def trusted_keys(device: Path, extra: list[Path]) -> list[PublicKey]:
    """Keys given on the command line or in kb.toml, then those stored in the device dir."""
    paths = list(extra) + sorted(DeviceLayout(device).trusted.glob("*.pub"))
    return [load_public(p) for p in paths]


def sync(source: str, device: Path, *, trusted: list[Path] | None = None,
         branch: str = "kb-index", keep: int = 5, max_age_days: int = 30) -> SyncResult:
    """Bring `device` to the newest verified release offered by `source`."""
    source = normalize_source(source)
    device.mkdir(parents=True, exist_ok=True)
    device = device.resolve()
    with dev.locked(device):
        state = dev.read_state(device)
        try:
            result = _sync_locked(source, device, state, trusted or [], branch, keep,
                                  max_age_days)
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


def sync_device(device: Path, source: str | None = None, *, trusted: Sequence[Path] = (),
                cfg: Config | None = None) -> SyncResult:
    """`kb sync`: `sync` with kb.toml's ``[release]`` settings; `source` defaults to the
    device's last one, and the trusted keys are `trusted` plus ``release.trusted_keys``."""
    if source is None:
        source = dev.read_state(device).get("source")
        if not source:
            raise UsageError("no SOURCE given and this device has never synced", path=str(device))
    settings = release_settings(cfg)
    return sync(source, device, trusted=[*trusted, *settings.trusted_keys],
                branch=settings.branch, keep=settings.keep,
                max_age_days=settings.max_age_days)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _sync_locked(source: str, device: Path, state: dict[str, Any], extra_keys: list[Path],
                 branch: str, keep: int, max_age_days: int) -> SyncResult:
    dev.clean_staging(device)
    gd = DeviceLayout(device).repo
    if not (gd / "HEAD").is_file():
        run_git(gd, "init", "-q", "--bare", error=SyncError)
    keys = trusted_keys(device, extra_keys)
    refs = list_source(gd, source, branch)
    if refs.branch_ref is None:
        raise SyncError(f"no {branch} branch at the source (is it an artifacts repo?)",
                        path=source)
    rolled_back = set(state.get("rolled_back", []))
    offered = {s: r for s, r in refs.tags.items() if tag_name(s) not in rolled_back}
    if not offered:
        raise SyncError("the source has no release tags to serve", path=source)
    serial = max(offered)
    tag = tag_name(serial)
    current = dev.served_tag(device)
    cur_serial = parse_serial(current) if current else None
    floor = max(int(state.get("highest_serial", 0)), cur_serial or 0)
    if current == tag:
        return SyncResult(tag, serial, current, False, source, warnings=_age_warn(
            dev.served_release(device), max_age_days))
    if serial < floor:
        raise SyncError(f"newest release at the source is {tag}, older than "
                        f"{tag_name(floor)} already accepted; refusing a downgrade "
                        "(use `kb rollback` to serve an older local release)", path=source)
    fetched = 0
    final = DeviceLayout(device).release(tag)
    signed_by = None
    if not final.is_dir():
        fetched = fetch(gd, source, refs.branch_ref, branch, offered[serial][0], tag)
        signed_by = _install(device, source, branch, tag, serial, keys)
    dev.switch_to(device, tag)
    dev.prune(device, keep, {t: parse_serial(t) or -1 for t in dev.release_dirs(device)})
    return SyncResult(tag, serial, current, True, source, signed_by, fetched,
                      _age_warn(final, max_age_days))


def _install(device: Path, source: str, branch: str, tag: str, serial: int,
             keys: list[PublicKey]) -> str | None:
    """Check the fetched tag, export and verify it in staging, rename it into releases/.

    Returns the id of the key that signed it (None when no keys are trusted).
    """
    layout = DeviceLayout(device)
    commit, tag_mhash = check_tag(layout.repo, source, branch, tag)
    staging = layout.staging(tag)
    export(layout.repo, commit, staging)
    verified = verify_release(staging, tag, serial, tag_mhash, keys)
    ReleaseLayout(staging).verified.write_text(json.dumps(verified, indent=1) + "\n")
    dev.fsync_dir(staging)
    final = layout.release(tag)
    staging.rename(final)
    dev.fsync_dir(final.parent)
    signed_by: str | None = verified["signed_by"]
    return signed_by


def _age_warn(release: Path | None, max_age_days: int) -> tuple[str, ...]:
    if release is None:
        return ()
    created = dev.read_json(ReleaseLayout(release).release_json).get("created")
    if not created:
        return ()
    age = datetime.now(UTC) - datetime.fromisoformat(created)
    if age.days > max_age_days:
        return (f"release {release.name} is {age.days} days old (more than "
                f"release.max_age_days = {max_age_days}); is the source still updated?",)
    return ()
