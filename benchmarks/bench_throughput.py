"""Cold full build throughput against the peer pipeline, one after the other in the same run.

    .venv/bin/python benchmarks/bench_throughput.py --peer-python PEER_VENV/bin/python
        [--set aliyun_ecs_zh] [--out bench-out/throughput] [--code DIR ...] [--skip-peer]

The corpus is `aliyun_ecs_zh` minus its FAQ pages (the hard-linked corpus of
`bench_eval.corpus_of`, 742 documents, ~5 MB). The peer is ../shared/peer/seed004.py (LangChain
splitters, Chroma, rank_bm25, USE with two threads), run with the Python of an environment that
has its packages (its README). kbtools is `kb build --corpus … --lenient --no-cache --json` in a
fresh process, from this checkout and from every `--code DIR` (e.g. main, for a same-run
baseline of the code before a change). Each child is timed from start to exit; its peak RSS is
its own `ru_maxrss` (os.wait4).

Prints per pipeline: process wall, CPU seconds (user + system, its workers included), build seconds (the peer's own figure excludes loading its
model; kbtools' is the sum of its stages), chunks, chunks embedded and embed seconds, peak RSS,
and corpus MB per minute of process wall, then the kbtools/peer throughput ratio (same run). On
a shared machine compare the CPU seconds: wall follows the load of the moment.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_eval import SHARED, corpus_of, questions_of  # noqa: E402

PEER = ROOT.parent / "shared" / "peer" / "seed004.py"


def run(cmd: list[str], env: dict[str, str], stdout: Path,
        cwd: Path | None = None) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS MiB, exit status, CPU seconds) of one child process; stdout
    to a file. The CPU seconds (user + system) include the child's own waited-for children
    (its embedding workers)."""
    t0 = time.perf_counter()
    with stdout.open("wb") as out, stdout.with_suffix(".err").open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return (wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def first_docs(corpus: Path, n: int, dest: Path) -> Path:
    """Hard links to the first `n` documents of `corpus` (by name) in `dest`."""
    if not dest.is_dir():
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for f in sorted(corpus.glob("*.md"))[:n]:
            if not (tmp / f.name).exists():
                os.link(f, tmp / f.name)
        tmp.rename(dest)
    return dest


def corpus_mb(corpus: Path) -> float:
    return sum(p.stat().st_size for p in corpus.rglob("*.md")) / 1e6


def peer(python: str, corpus: Path, questions: Path, work: Path) -> dict[str, Any]:
    stats = work / "peer-stats.json"
    cmd = [python, str(PEER), "--corpus", str(corpus), "--queries", str(questions),
           "--out", str(work / "peer-results.jsonl"), "--mode", "hybrid", "--embedder", "use",
           "--limit", "5", "--stats", str(stats), "--tmpdir", str(work)]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("PYTHONPATH", None)
    wall, rss, code, cpu = run(cmd, env, work / "peer.out")
    if code:
        sys.exit(f"peer failed ({code}): see {work / 'peer.err'}")
    s = json.loads(stats.read_text(encoding="utf-8"))
    s = s.get("hybrid", s)
    build_s = sum(float(s.get(k) or 0) for k in
                  ("load_chunk_s", "embed_s", "chroma_add_s", "bm25_build_s"))
    return {"name": "peer (seed004)", "wall": wall, "cpu": cpu, "build": build_s, "rss": rss,
            "chunks": s.get("n_chunks"), "embedded": s.get("n_chunks"),
            "embed": s.get("embed_s"), "model_load": s.get("model_load_s")}


def warm_up(code: Path, corpus: Path, work: Path) -> None:
    """An untimed build of a few documents with `code`: what a first build on a machine makes
    once (KB_HOME's model pickle and caches, bytecode) is then made for every tree alike,
    whichever runs first (the first tree's chunk stage took ~2 s more without it)."""
    few = work / f"warm-{code.name}"
    for path in sorted(corpus.rglob("*.md"))[:20]:
        target = few / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    env = dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    subprocess.run([sys.executable, "-m", "kbtools", "build", "--corpus", str(few), "--out",
                    str(work / f"warm-dist-{code.name}"), "--lenient", "--no-cache", "--json"],
                   env=env, cwd=code, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def kbtools(code: Path, corpus: Path, work: Path, tag: str) -> dict[str, Any]:
    out = work / f"dist-{tag}"
    cmd = [sys.executable, "-m", "kbtools", "build", "--corpus", str(corpus), "--out",
           str(out), "--lenient", "--no-cache", "--json"]
    # --no-cache: nothing embedded or parsed earlier is reused (KB_HOME's one-off files,
    # such as USE's weights pickle, come from the untimed `warm_up` build, as on any machine
    # that has built once)
    env = dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    wall, rss, status, cpu = run(cmd, env, work / f"kb-{tag}.out", cwd=code)  # its kb.toml
    if status:
        sys.exit(f"kb build failed ({status}): see {work / f'kb-{tag}.err'}")
    s = json.loads((work / f"kb-{tag}.out").read_text(encoding="utf-8"))
    s = s.get("stats", s)
    secs = s.get("seconds", {})
    return {"name": f"kbtools {tag}", "wall": wall, "cpu": cpu, "build": sum(secs.values()),
            "rss": rss,
            "chunks": s.get("chunks"), "embedded": s.get("embedded"), "embed": secs.get("embed"),
            "stages": secs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="aliyun_ecs_zh", help="dev set whose corpus is built")
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "throughput"))
    ap.add_argument("--peer-python", default=os.environ.get("KB_PEER_PYTHON", ""),
                    help="python of an environment with the peer's packages (KB_PEER_PYTHON)")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--docs", type=int, default=0,
                    help="only the first N documents of the corpus (a quicker same-run ratio)")
    ap.add_argument("--code", action="append", default=[], metavar="DIR",
                    help="another kbtools checkout to build with too (repeatable)")
    args = ap.parse_args()
    if not args.skip_peer and not args.peer_python:
        ap.error("--peer-python (or KB_PEER_PYTHON) is required unless --skip-peer")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    corpus = corpus_of(args.set, out)
    if args.docs:
        corpus = first_docs(corpus, args.docs, out / "corpora" / f"{args.set}-{args.docs}")
    mb = corpus_mb(corpus)
    n_docs = sum(1 for _ in corpus.rglob("*.md"))
    print(f"corpus {args.set} ({SHARED.name}): {n_docs} docs, {mb:.2f} MB", flush=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kb-throughput-", dir=out) as tmp:
        work = Path(tmp)
        for code in [ROOT, *(Path(c).resolve() for c in args.code)]:
            warm_up(code, corpus, work)
        rows.append(kbtools(ROOT, corpus, work, "this"))
        _print(rows[-1], mb)
        if not args.skip_peer:
            rows.append(peer(args.peer_python, corpus, questions_of(args.set, out), work))
            _print(rows[-1], mb)
        for c in args.code:  # baselines last: the figure against the peer comes first
            rows.append(kbtools(Path(c).resolve(), corpus, work, Path(c).resolve().name))
            _print(rows[-1], mb)
    base = rows[1] if not args.skip_peer else rows[0]
    print(f"\nthroughput relative to {base['name']} (corpus MB/min of process wall; "
          "same run; > 1 is faster):")
    for r in rows:
        print(f"  {r['name']:<24} {base['wall'] / r['wall']:5.2f}×   "
              f"(vs its build seconds: {base['build'] / r['wall']:5.2f}×; "
              f"CPU seconds {r['cpu'] / base['cpu']:5.2f}× of its)")


def _print(r: dict[str, Any], mb: float) -> None:
    embed = f"{r['embed']:.1f}s" if r.get("embed") is not None else "-"
    print(f"{r['name']:<24} wall {r['wall']:6.1f}s  cpu {r['cpu']:6.1f}s  build {r['build']:6.1f}s  "
          f"chunks {r['chunks']}  embedded {r['embedded']}  embed {embed}  "
          f"peak {r['rss']:.0f} MiB  {mb / r['wall'] * 60:.2f} MB/min", flush=True)
    if r.get("stages"):
        print("    stages: " + ", ".join(f"{k} {v:.1f}s" for k, v in r["stages"].items()),
              flush=True)


if __name__ == "__main__":
    main()
