"""Helpers shared by the release/sync/device tests (no tests here).

`make_dist` writes a small index directory in the manifest layout (data/ files + manifest,
no derived files), so release and sync logic can be exercised in milliseconds; the
end-to-end tests in test_sync_e2e.py use real `kb build` output instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from pathlib import Path

from kbtools.index.manifest import FORMAT_VERSION, list_files, write_manifest
from kbtools.ship.release import make_release
from tests.ports import free_port


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def make_knowledge_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "knowledge").mkdir(exist_ok=True)
    (path / "knowledge" / "a.md").write_text("# A\n\nhello\n")
    (path / "kb.toml").write_text("")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def make_dist(path: Path, files: dict[str, bytes], *, commit: str = "c0ffee",
              derived: dict | None = None, dirty: bool = False) -> Path:
    """A dist/ with the given data/ files (relative to data/) and a valid manifest."""
    if path.exists():
        import shutil
        shutil.rmtree(path)
    for rel, data in files.items():
        p = path / "data" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    manifest = {
        "format_version": FORMAT_VERSION, "kbtools_version": "test",
        "source": {"commit": commit, "tree": "dirty" if dirty else "t" + commit,
                   "dirty": dirty},
        "config": {"fingerprint": "f", "values": {}}, "models": {},
        "tokenizer": {"name": "none", "version": "0", "dictionary_sha256": "0" * 64},
        "counts": {"files": len(files)}, "artifacts": list_files(path, "data"),
        "derived": derived or {},
    }
    write_manifest(path, manifest)
    return path


def sample_files(version: int, n: int = 8) -> dict[str, bytes]:
    """n shard files; only shard 0 changes with `version`."""
    files = {f"chunks/{i:02x}.jsonl": (f'{{"shard": {i}, "text": "' + "x" * 2000 + '"}\n').encode()
             for i in range(n)}
    files["chunks/00.jsonl"] = f'{{"version": {version}}}\n'.encode()
    return files


class Pub:
    """A knowledge repo publishing releases of `sample_files` (plus `extra` files) to a bare
    artifacts repo, signed with `sign_key` when given."""

    def __init__(self, tmp: Path, sign_key: Path | None = None):
        self.kr = make_knowledge_repo(tmp / "kr")
        self.art = tmp / "art.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.art)], check=True)
        self.tmp, self.sign_key, self.n = tmp, sign_key, 0

    def release(self, extra: dict[str, bytes] | None = None) -> str:
        self.n += 1
        files = {**sample_files(self.n), **(extra or {})}
        dist = make_dist(self.tmp / "dist", files, commit=f"src{self.n}")
        return make_release(self.kr, dist, remote=str(self.art), sign_key=self.sign_key).tag



class GitDaemon:
    """`git daemon` on loopback serving every repo under `base` (accepting pushes: `push`).

    Started when the daemon itself says it listens ("Ready to rumble", `--verbose`), not when
    its port answers: a port `free_port` found free can be taken by another process (the
    other pytest worker's server, a connection's own end) before the daemon binds it; the
    daemon then exits, the port answered for the other one, and every connection of the test
    was refused. Such a start is tried again on another port."""

    def __init__(self, base: Path, push: bool = False):
        self.base = base
        for _ in range(5):
            self.port = free_port()
            self.proc = subprocess.Popen(
                ["git", "daemon", "--verbose", f"--base-path={base}", "--export-all",
                 "--reuseaddr", *(["--enable=receive-pack"] if push else []),
                 f"--port={self.port}", "--listen=127.0.0.1", str(base)],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ})
            if self._ready():
                # its log (a line per connection) read on, so that it never fills the pipe
                threading.Thread(target=self._drain, daemon=True).start()
                return
            self.stop()
        raise RuntimeError(f"git daemon did not start under {base}")

    def _ready(self, timeout: float = 30.0) -> bool:
        """Whether the daemon said it listens before it exited or `timeout` passed."""
        assert self.proc.stderr is not None
        found: list[bool] = []

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                if b"Ready to rumble" in line:
                    found.append(True)
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        return bool(found)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for _ in self.proc.stderr:
            pass

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


class Proxy:
    """A TCP proxy on loopback in front of `port`. `mode` (read at each connection):
    "pass"; "cut" (close both sides once `after` bytes went to the client); "stall" (stop
    forwarding after `after` bytes until `close()`); "refuse" (reset each connection);
    "slow" (a pause of `pause` seconds after every `after` bytes: a slow, bursty link).
    `upstream`: cut or stall what the client sends (a push) instead of what it receives."""

    def __init__(self, port: int):
        self.target, self.mode, self.after, self.upstream = port, "pass", 0, False
        self.pause = 0.0
        self.released = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def close(self) -> None:
        self.released.set()
        self.server.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if self.mode == "refuse":
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            faulty, clean = (self.mode, self.after), ("pass", 0)
            up, down = (faulty, clean) if self.upstream else (clean, faulty)
            threading.Thread(target=self._pump, args=(client, upstream, *up),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, *down),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, mode: str, after: int) -> None:
        sent = 0
        try:
            while block := src.recv(1 << 14):
                if mode == "slow":  # 1 KiB at a time, a pause each time `after` is passed
                    for at in range(0, len(block), 1 << 10):
                        piece = block[at:at + (1 << 10)]
                        if (sent + len(piece)) // after > sent // after:
                            time.sleep(self.pause)
                        dst.sendall(piece)
                        sent += len(piece)
                    continue
                if mode != "pass" and sent + len(block) >= after:
                    dst.sendall(block[:after - sent])
                    if mode == "stall":
                        self.released.wait()
                    break
                dst.sendall(block)
                sent += len(block)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def tree_files(repo: Path, rev: str) -> dict[str, bytes]:
    names = git(repo, "ls-tree", "-r", "--name-only", "-z", rev).split("\0")
    return {n: subprocess.run(["git", "cat-file", "blob", f"{rev}:{n}"], cwd=repo,
                              check=True, capture_output=True).stdout for n in names if n}


def forge_release(art: Path, mutate, *, on_branch: bool = True, resign=None) -> str:
    """Write a release commit + tag (next serial) straight into a bare artifacts repo,
    bypassing `kb release`, after `mutate(files)` changed its content: an attacker's or a
    broken publisher's release. release.json is updated to the new serial first; the tag
    names the sha256 of the (possibly mutated) manifest.json. Returns the tag name."""
    import hashlib
    import json
    import tempfile

    tip = git(art, "rev-parse", "refs/heads/kb-index").strip()
    tags = [t for t in git(art, "tag").split() if t.startswith("kb-r")]
    serial = max(int(t[4:]) for t in tags) + 1
    files = tree_files(art, tip)
    rel = json.loads(files["release.json"])
    rel.update(serial=serial, tag=f"kb-r{serial}")
    files["release.json"] = (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode()
    mutate(files)
    if resign is not None:
        from kbtools.ship.signing import sign
        files["release.sig"] = sign(resign, files["release.json"])
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": f"{tmp}/index"}
        for name, data in files.items():
            sha = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=art, input=data,
                                 check=True, capture_output=True).stdout.decode().strip()
            subprocess.run(["git", "update-index", "--add", "--cacheinfo",
                            f"100644,{sha},{name}"], cwd=art, env=env, check=True)
        tree = subprocess.run(["git", "write-tree"], cwd=art, env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    commit = git(art, "commit-tree", tree, "-p", tip, "-m", "forged").strip()
    mhash = hashlib.sha256(files["manifest.json"]).hexdigest()
    git(art, "tag", "-a", f"kb-r{serial}", commit, "-m",
        f"kb release {serial}\n\nmanifest-sha256: {mhash}\n")
    if on_branch:
        git(art, "update-ref", "refs/heads/kb-index", commit)
    return f"kb-r{serial}"
