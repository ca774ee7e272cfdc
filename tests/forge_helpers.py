"""Hostile release trees for sync tests (no tests here).

`forge_tree` writes the next release commit + tag straight into a bare artifacts repository
made by `kb release`, from entries of any git mode (symbolic links 120000, executables
100755, submodules 160000) and any path segments (``..``, ``.git``, names with a slash),
building the tree objects by hand (`git hash-object -t tree --literally`), so the tree holds
exactly what an attacker wants. release.json gets the next serial and, when a key is given,
a valid signature: only the tree is hostile.

`run_forked` runs a function in a forked child with a time limit and a memory limit, so a
sync that would hang on a FIFO or read /dev/zero forever fails the test instead of the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import select
import signal
import subprocess
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_release_helpers import git, tree_files

from kbtools.errors import KbError
from kbtools.ship.signing import sign

REGULAR = "100644"
EXEC = "100755"
LINK = "120000"
GITLINK = "160000"

# path (segments joined by "/", or a tuple of raw segments) -> (mode, bytes)
Entries = dict[Any, tuple[str, bytes]]


def _hash(art: Path, data: bytes, kind: str = "blob") -> str:
    args = ["git", "hash-object", "-w", "--stdin", "-t", kind]
    if kind == "tree":
        args.append("--literally")
    return subprocess.run(args, cwd=art, input=data, check=True,
                          capture_output=True).stdout.decode().strip()


def _write_tree(art: Path, node: dict[bytes, Any]) -> str:
    """node: name -> (mode, bytes | oid) for leaves, or a nested dict for a directory."""
    rows = []
    for name, val in node.items():
        if isinstance(val, dict):
            rows.append((name + b"/", b"40000", _write_tree(art, val), name))
        else:
            mode, data = val
            oid = data if mode == GITLINK else _hash(art, data)
            rows.append((name, mode.encode(), oid, name))
    rows.sort(key=lambda r: r[0])
    body = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(oid)
                    for _key, mode, oid, name in rows)
    return _hash(art, body, "tree")


def _segments(path: Any) -> list[bytes]:
    if isinstance(path, tuple):
        return [s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s for s in path]
    return [s.encode("utf-8", "surrogateescape") for s in path.split("/")]


def build_tree(art: Path, entries: Entries) -> str:
    """The tree of `entries`; a later entry below a path that names a file replaces it."""
    root: dict[bytes, Any] = {}
    for path, leaf in entries.items():
        segs = _segments(path)
        node = root
        for seg in segs[:-1]:
            if not isinstance(node.get(seg), dict):
                node[seg] = {}
            node = node[seg]
        node[segs[-1]] = leaf
    return _write_tree(art, root)


def current_entries(art: Path, rev: str = "refs/heads/kb-index") -> Entries:
    return {name: (REGULAR, data) for name, data in tree_files(art, rev).items()}


def next_serial(art: Path) -> int:
    tags = [t for t in git(art, "tag").split() if t.startswith("kb-r")]
    return max(int(t[4:]) for t in tags) + 1


def edit_manifest(entries: Entries, change: Callable[[dict[str, Any]], None]) -> None:
    """Change manifest.json and keep release.json's manifest hash in step."""
    m = json.loads(entries["manifest.json"][1])
    change(m)
    data = (json.dumps(m, sort_keys=True, indent=1) + "\n").encode()
    entries["manifest.json"] = (REGULAR, data)
    rel = json.loads(entries["release.json"][1])
    rel["manifest_sha256"] = hashlib.sha256(data).hexdigest()
    entries["release.json"] = (REGULAR, (json.dumps(rel, sort_keys=True, indent=1) + "\n")
                               .encode())


def list_artifact(entries: Entries, path: str, data: bytes, mode: str = REGULAR) -> None:
    """Add `path` to the tree and to the manifest's artifacts with its true sha256 and size."""
    entries[path] = (mode, data)
    edit_manifest(entries, lambda m: m["artifacts"].update(
        {path: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}}))


def forge_tree(art: Path, mutate: Callable[[Entries], None], *, key: Any = None,
               rel_change: Callable[[dict[str, Any]], None] | None = None,
               base: str = "refs/heads/kb-index") -> str:
    """Commit + tag the next release on top of `base` (the branch tip by default) with its
    files after `mutate(entries)`, and move the branch there; release.json is re-serialed
    (and changed by `rel_change`), then signed with `key` when given."""
    tip = git(art, "rev-parse", f"{base}^{{commit}}").strip()
    serial = next_serial(art)
    entries = current_entries(art, base)
    rel = json.loads(entries["release.json"][1])
    rel.update(serial=serial, tag=f"kb-r{serial}")
    if rel_change is not None:
        rel_change(rel)
    entries["release.json"] = (REGULAR, (json.dumps(rel, sort_keys=True, indent=1) + "\n")
                               .encode())
    mutate(entries)
    rel_entry = entries.get("release.json")
    if rel_entry is not None and rel_entry[0] == GITLINK:
        rel_entry = None
    if key is not None and rel_entry is not None and rel_entry[0] == REGULAR:
        entries["release.sig"] = (REGULAR, sign(key, rel_entry[1]))
    tree = build_tree(art, entries)
    commit = git(art, "commit-tree", tree, "-p", tip, "-m", "forged").strip()
    man = entries.get("manifest.json", (REGULAR, b""))[1]
    mhash = hashlib.sha256(man if isinstance(man, bytes) else man.encode()).hexdigest()
    try:
        mhash = json.loads(rel_entry[1] if rel_entry else b"")["manifest_sha256"]
    except (ValueError, KeyError, TypeError):
        pass
    git(art, "tag", "-a", f"kb-r{serial}", commit, "-m",
        f"kb release {serial}\n\nmanifest-sha256: {mhash}\n")
    git(art, "update-ref", "refs/heads/kb-index", commit)
    return f"kb-r{serial}"


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every entry below `root` (not following links, not entering the top-level directories
    named in `skip`): kind, size, mtime, content hash."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == root:
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            rel = p.relative_to(root).as_posix()
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif p.is_file():
                out[rel] = ("file", st.st_size, st.st_mtime_ns,
                            hashlib.sha256(p.read_bytes()).hexdigest())
            elif p.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("special", st.st_mode)
    return out


def run_forked(fn: Callable[[], Any], *, timeout: float = 60.0,
               extra_memory: int = 1 << 30) -> tuple[str, Any]:
    """Run `fn` in a forked child: ("ok", result) | ("kberror", message) |
    ("crash", traceback) | ("timeout", None). The child may grow by `extra_memory` bytes."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            with open("/proc/self/statm") as fh:
                vsz = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            resource.setrlimit(resource.RLIMIT_AS, (vsz + extra_memory, vsz + extra_memory))
            payload: tuple[str, Any] = ("ok", fn())
        except KbError as exc:
            payload = ("kberror", str(exc))
        except BaseException:  # noqa: BLE001 - reported to the parent
            payload = ("crash", traceback.format_exc())
        try:
            os.write(w, json.dumps(payload, default=str).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([r], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return ("timeout", None)
            block = os.read(r, 1 << 16)
            if not block:
                break
            chunks.append(block)
    finally:
        os.close(r)
    os.waitpid(pid, 0)
    if not chunks:
        return ("crash", "child died without a word")
    kind, value = json.loads(b"".join(chunks))
    return (kind, value)
