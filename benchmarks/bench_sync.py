"""Release/sync figures on a real corpus (default: ../shared/corpora/tidb-docs-cn).

1. Delta: build + release the corpus, sync a device, make a one-paragraph edit to one
   document, build + release again, sync again. Prints the pack `git fetch` transferred
   for the second sync as a fraction of the full release (aim: <= 5%), measured two ways:
   the thin pack git's pack-objects produces for "new ^old" (what upload-pack sends) and
   the growth of the device's object store (fetch keeps the pack; index-pack --fix-thin
   may add a few base objects, so this one is an upper bound).
2. Clone size: `git clone --no-local` of the knowledge repo before the first release and
   after N releases (releases live under refs/kb/*, which clones do not fetch), next to
   the size of the knowledge repo's own .git and of the artifacts repository.

Usage: .venv/bin/python benchmarks/bench_sync.py [--corpus DIR] [--releases 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.fsutil import read_json_lines
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[1] / "shared" / "corpora" / "tidb-docs-cn" / "docs"
ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}


def git(cwd: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, input=data, check=True,
                          capture_output=True, env={**os.environ, **ENV}).stdout


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def clone_size(repo: Path, dest: Path) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["git", "clone", "-q", "--no-local", "--bare", str(repo), str(dest)],
                   check=True)
    return du(dest)


def thin_pack_size(art: Path, new: str, old: str | None) -> int:
    revs = f"{new}\n" + (f"^{old}\n" if old else "")
    args = ["pack-objects", "--revs", "--stdout", "-q"] + (["--thin"] if old else [])
    if old is None:  # a device's first (depth 1) sync: just the release commit's objects
        revs = f"{new}\n^{new}^\n" if _has_parent(art, new) else f"{new}\n"
    return len(git(art, *args, data=revs.encode()))


def _has_parent(repo: Path, rev: str) -> bool:
    return subprocess.run(["git", "rev-parse", "-q", "--verify", f"{rev}^"], cwd=repo,
                          capture_output=True).returncode == 0


def edit_one_paragraph(repo: Path, n: int) -> str:
    """Append a sentence to one prose paragraph (outside code fences and front matter) of
    a mid-sized document that the build indexed (listed in dist/data/docs.jsonl)."""
    built = [d["doc"] for d in read_json_lines(repo / "dist" / "data" / "docs.jsonl")]
    docs = sorted(built, key=lambda d: ((repo / d).stat().st_size, d))
    for doc in docs[len(docs) // 2 + n:]:
        path = repo / doc
        lines = path.read_text(encoding="utf-8").split("\n")
        fence, front, prose = False, lines[:1] == ["---"], []
        for i, line in enumerate(lines):
            if front:
                front = not (i > 0 and line == "---")
                continue
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
            elif not fence and len(line) >= 40 and not re.match(r"^\s*([#|>*!<{\[-]|\d+\.)", line):
                prose.append(i)
        if prose:
            i = prose[len(prose) // 2]
            lines[i] += f" 基准测试第 {n} 次修改：补充一句说明。"
            path.write_text("\n".join(lines), encoding="utf-8")
            return doc
    raise RuntimeError("no prose paragraph found to edit")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--releases", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", type=Path, default=None, help="work here and keep it")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="kb-bench-sync-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("KB_HOME", str(work / "home"))
    kr, art, dev = work / "kr", work / "art.git", work / "device"
    cache = work / "kb-cache"  # the embedding cache survives reruns with --keep
    if (kr / ".kb-cache").is_dir():
        shutil.rmtree(cache, ignore_errors=True)
        os.replace(kr / ".kb-cache", cache)
    for p in (kr, art, dev):
        if p.exists():
            shutil.rmtree(p)
    shutil.copytree(args.corpus, kr / "knowledge")
    if cache.is_dir():
        shutil.copytree(cache, kr / ".kb-cache")
    (kr / "kb.toml").write_text("[paths]\nknowledge = \"knowledge\"\n")
    (kr / ".gitignore").write_text("dist/\n.kb-cache/\n")
    git(kr, "init", "-q", "-b", "main")
    git(kr, "add", "-A")
    git(kr, "commit", "-q", "-m", "corpus")
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    fig: dict = {"corpus": str(args.corpus), "docs": len(list((kr / "knowledge").rglob("*.md")))}
    fig["clone_bytes_before"] = clone_size(kr, work / "clone0.git")

    cfg = load_config(kr)
    opts = BuildOptions(lenient=True, skip_invalid=True, progress=False)

    def build_release() -> tuple[str, str, float]:
        t = time.perf_counter()
        build(cfg, opts)
        secs = time.perf_counter() - t
        info = make_release(kr, cfg.path("dist"), remote=str(art))
        return info.tag, info.commit, secs

    tag1, c1, secs = build_release()
    fig["first_build_seconds"] = round(secs, 1)
    fig["embedding_cache_reused"] = cache.is_dir()
    t = time.perf_counter()
    s1 = sync(str(art), dev)
    fig["first_sync_seconds"] = round(time.perf_counter() - t, 1)
    fig["release_files_bytes"] = du(kr / "dist" / "data") + (kr / "dist/manifest.json").stat().st_size
    fig["full_release_pack_bytes"] = thin_pack_size(art, c1, None)
    fig["first_sync_store_bytes"] = s1.fetched_bytes

    fig["edited_doc"] = edit_one_paragraph(kr, 0)
    git(kr, "commit", "-qam", "one-paragraph edit")
    tag2, c2, secs = build_release()
    fig["incremental_build_seconds"] = round(secs, 1)
    changed = git(art, "diff", "--name-only", c1, c2).decode().split()
    fig["files_changed_in_release"] = len(changed)
    fig["changed_files"] = changed
    s2 = sync(str(art), dev)
    assert s2.tag == tag2
    fig["delta_pack_bytes"] = thin_pack_size(art, c2, c1)
    fig["delta_store_bytes"] = s2.fetched_bytes
    fig["delta_fraction"] = round(fig["delta_pack_bytes"] / fig["full_release_pack_bytes"], 4)
    fig["delta_fraction_store"] = round(s2.fetched_bytes / max(1, s1.fetched_bytes), 4)

    for n in range(2, args.releases):
        edit_one_paragraph(kr, n)
        git(kr, "commit", "-qam", f"edit {n}")
        build_release()
    fig["releases"] = len(git(art, "tag").split())
    fig["clone_bytes_after"] = clone_size(kr, work / "clone1.git")
    fig["knowledge_git_dir_bytes"] = du(kr / ".git")
    fig["artifacts_repo_bytes"] = du(art)
    if args.json:
        print(json.dumps(fig, indent=1))
    else:
        for k, v in fig.items():
            print(f"{k:28} {v}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
