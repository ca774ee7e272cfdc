"""Helpers for the hostile-input tests (no tests here): small knowledge repos, the real `kb`
CLI in a subprocess with a time limit, and a way to run it without root's power to read
any file (so "permission denied" can be tested as root too)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

KB = [sys.executable, "-m", "kbtools"]

GOOD_DOC = """---
title: Pump maintenance
category: engineering
project: demo
source: test
author: alice@example.org
timestamp: "2026-03-14T09:30:00+08:00"
verified: false
---

# Pump maintenance

Replace the mechanical seal of the irrigation pump every 2000 operating hours.
"""


def make_repo(root: Path, *, model: str = "test-hash", docs: dict[str, str] | None = None,
              commit: bool = True) -> Path:
    """A knowledge repo with one good document (plus `docs`), committed to Git."""
    (root / "knowledge").mkdir(parents=True, exist_ok=True)
    (root / "assets").mkdir(exist_ok=True)
    (root / "kb.toml").write_text(f'[embedding]\nmodel = "{model}"\nlanguages = {{ en = "{model}", zh = "{model}" }}\n', encoding="utf-8")
    (root / "knowledge" / "good.md").write_text(GOOD_DOC, encoding="utf-8")
    for rel, text in (docs or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    if commit:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "knowledge")
    return root


def built_repo_index(root: Path, docs: dict[str, str], *, model: str = "use") -> Path:
    """`make_repo` with `docs`, built with `model` into its dist/ (returned)."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = make_repo(root, model=model, docs=docs)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    return repo / "dist"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def env(home: Path) -> dict[str, str]:
    """The environment for `kb`: this tree first on the path, a private KB_HOME, offline."""
    out = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    tree = str(Path(__file__).resolve().parents[1])
    out["PYTHONPATH"] = os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH")) if p)
    out.update(KB_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return out


def kb(cwd: Path, *args: str | bytes, home: Path, timeout: float = 120,
       stdin: bytes | None = None,
       preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the real CLI; a hang fails the test after `timeout` seconds."""
    return subprocess.run([*KB, *args], cwd=cwd, env=env(home), capture_output=True,
                          timeout=timeout, input=stdin, preexec_fn=preexec)


def drop_read_override() -> None:
    """preexec_fn: give up CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (root then obeys file
    modes, as every other user does)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def can_drop_read_override() -> bool:
    if os.geteuid() != 0:
        return True
    try:
        return subprocess.run(["true"], preexec_fn=drop_read_override).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def tree_bytes(path: Path) -> bytes:
    """Every byte under `path` (file names and contents), for "is X anywhere in here"."""
    out = []
    for p in sorted(path.rglob("*")):
        out.append(os.fsencode(p.relative_to(path)))
        if p.is_file() and not p.is_symlink():
            out.append(p.read_bytes())
    return b"\n".join(out)


def snapshot(path: Path) -> dict[str, tuple[int, bytes]]:
    """(mtime_ns, content) of every regular file under `path`: nothing may write there."""
    return {str(p): (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(path.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def mcp_client(command: list[str], cwd: Path, environ: dict[str, str], scenario):
    """Start the MCP server `command` in `cwd` (its stderr in cwd/server-stderr.log), run
    `await scenario(client)` on an initialized session, return its result."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd),
                                   env=environ)
    out: list = []

    async def main():
        with open(cwd / "server-stderr.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (r, w):
                async with ClientSession(r, w) as client:
                    await client.initialize()
                    out.append(await scenario(client))

    anyio.run(main)
    return out[0]
