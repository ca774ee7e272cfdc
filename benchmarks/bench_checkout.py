"""Plain git as a client: time from `git checkout` to the first answer, and clone sizes.

    .venv/bin/python benchmarks/bench_checkout.py                    # the example knowledge
    .venv/bin/python benchmarks/bench_checkout.py --dist /work/bench/tidb54k/dist
        [--question "如何查看 TiDB 的版本"] [--work bench-out/checkout] [--json]

Without --dist the repository's own knowledge/ is built (cached embeddings make reruns
quick). The dist, its index/ derived again by this tree (a dist built by older code may
not match today's derivation, and a client would refuse it), is released as kb-r1 into a
scratch artifacts repository; kb-r2 is the same release with one chunk's text edited, i.e.
a release that changes one document. Then, each step a fresh `kb query --index CLONE --json`
process (wall time, so model loading counts):

1. `git clone` (file://) -> first answer: kb-r2 verified and derived into .git/kb/derived/;
2. `git checkout kb-r1` -> first answer: kb-r1 verified and derived from kb-r2's index
   (changed shards only);
3. `git checkout kb-index` -> first answer: kb-r2's derived index reused;
4. baseline, same run: `kb query --index <the derived release dir>` (no checkout checks);
5. in-process: the checks a reused checkout costs before the index opens (median of 5).

Also the bytes of a full clone, a `--depth=1 --single-branch` clone and a
`--filter=blob:none` partial clone, and of the derived cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.fsutil import json_lines, read_json_lines
from kbtools.index.layout import DATA_DIR, DERIVED_DIR, ReleaseLayout
from kbtools.index.manifest import list_files, load_manifest, write_manifest
from kbtools.index.materialize import materialize
from kbtools.index.selfcheck import SELF_CHECK
from kbtools.ship.checkout import find_checkout, open_checkout
from kbtools.ship.release import make_release

ROOT = Path(__file__).resolve().parents[1]
ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV}).stdout


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def derived_copy(dist: Path, out: Path, *, edit: bool) -> Path:
    """`dist` with index/ derived by this tree's `materialize` and the manifest's file list
    rewritten (a dist built by older code may not match today's derivation); with `edit`,
    the first chunk of the first shard is changed first: a release that changes one
    document."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(dist, out, ignore=shutil.ignore_patterns(DERIVED_DIR))
    if edit:
        shard = ReleaseLayout(out).chunk_shards()[0]
        rows = read_json_lines(shard)
        rows[0]["text"] += " (edited)"
        rows[0]["embed_text"] += " (edited)"
        shard.write_bytes(json_lines(rows))
    manifest = load_manifest(out)
    manifest["artifacts"] = list_files(out, DATA_DIR)
    materialize(out)
    # as `kb build` writes it: index/ is self-checked on the client, not pinned by hash, so a
    # client may derive it from the release it used before (only changed shards redone)
    manifest["derived"] = {}
    manifest["derived_check"] = SELF_CHECK
    write_manifest(out, manifest)
    return out


def publish(dist: Path, work: Path) -> Path:
    """kb-r1 = `dist` (derived by this tree), kb-r2 = its one-chunk edit, in a fresh bare
    artifacts repository."""
    kr, art = work / "releaser", work / "art.git"
    for p in (kr, art):
        if p.exists():
            shutil.rmtree(p)
    kr.mkdir(parents=True)
    git(kr, "init", "-q")
    git(kr, "commit", "-q", "--allow-empty", "-m", "releases")
    git(work, "init", "-q", "--bare", str(art))
    git(art, "config", "uploadpack.allowFilter", "true")
    first = derived_copy(dist, work / "dist-r1", edit=False)
    make_release(kr, first, remote=str(art))
    make_release(kr, derived_copy(first, work / "dist-r2", edit=True), remote=str(art))
    return art


def ask(index: Path, question: str) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kbtools", "query", "--index", str(index),
                           question, "-k", "3", "--json"], capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"kb query failed: {proc.stderr.strip()}")
    return took, json.loads(proc.stdout)


def clone(url: str, dest: Path, *extra: str) -> tuple[float, int]:
    if dest.exists():
        shutil.rmtree(dest)
    t0 = time.perf_counter()
    subprocess.run(["git", "clone", "-q", *extra, url, str(dest)], check=True)
    return time.perf_counter() - t0, du(dest / ".git")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", type=Path, help="a built dist/ (default: build knowledge/)")
    ap.add_argument("--question", default="how to calibrate a sprayer")
    ap.add_argument("--work", type=Path, default=ROOT / "bench-out" / "checkout")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    dist = args.dist
    if dist is None:
        dist = work / "example-dist"
        if not (dist / "manifest.json").is_file():
                build(load_config(ROOT), BuildOptions(out=dist, progress=False))
    art = publish(dist.resolve(), work)
    url = f"file://{art}"
    figures: dict[str, Any] = {"dist": str(dist), "chunks": load_manifest(dist)["counts"],
                               "release_data_bytes": du(dist / DATA_DIR)}
    tree = work / "client"
    figures["clone_s"], figures["clone_git_bytes"] = clone(url, tree)
    steps = []
    for step, rev in (("clone -> first answer (derive kb-r2)", None),
                      ("checkout kb-r1 -> first answer (derive)", "kb-r1"),
                      ("checkout kb-index -> first answer (reuse)", "kb-index")):
        t0 = time.perf_counter()
        if rev is not None:
            git(tree, "checkout", "-q", rev)
        took, out = ask(tree, args.question)
        steps.append({"step": step, "seconds": round(time.perf_counter() - t0, 2),
                      "query_process_s": round(took, 2), "tag": out["release"]["tag"]})
    derived_root = tree / ".git" / "kb" / "derived"
    newest = next(p for p in derived_root.iterdir()
                  if json.loads((p / "verified.json").read_text())["tag"] == "kb-r2")
    base, out = ask(newest, args.question)
    steps.append({"step": "baseline: kb query on the derived release dir",
                  "seconds": round(base, 2), "query_process_s": round(base, 2),
                  "tag": out["release"]["tag"]})
    found = find_checkout(tree)
    assert found is not None
    overhead = []
    for _ in range(5):
        t0 = time.perf_counter()
        assert open_checkout(*found).reused
        overhead.append((time.perf_counter() - t0) * 1000)
    figures["reuse_checks_ms_median"] = round(sorted(overhead)[2], 1)
    figures["steps"] = steps
    figures["reuse_over_baseline"] = round(steps[2]["seconds"] / base, 2)
    figures["derived_cache_bytes"] = du(derived_root)
    figures["status_clean"] = git(tree, "status", "--porcelain", "--ignored") == ""
    _, figures["shallow_single_branch_git_bytes"] = clone(
        url, work / "shallow", "--depth=1", "--single-branch", "--branch=kb-index")
    _, figures["partial_blobless_git_bytes"] = clone(url, work / "partial", "--filter=blob:none",
                                                     "--no-local")
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"release: {figures['chunks']}, data/ {figures['release_data_bytes']:,} bytes")
    print(f"git clone: {figures['clone_s']:.2f} s, .git {figures['clone_git_bytes']:,} bytes;"
          f" depth 1 single-branch {figures['shallow_single_branch_git_bytes']:,}; partial "
          f"(blob:none) {figures['partial_blobless_git_bytes']:,}")
    for s in steps:
        print(f"{s['step']}: {s['seconds']:.2f} s ({s['tag']})")
    print(f"checks before a reused answer (HEAD, tag, git status, verified.json): "
          f"{figures['reuse_checks_ms_median']} ms median")
    print(f"reuse / baseline: {figures['reuse_over_baseline']}x; derived cache "
          f"{figures['derived_cache_bytes']:,} bytes; git status clean: "
          f"{figures['status_clean']}")


if __name__ == "__main__":
    main()
