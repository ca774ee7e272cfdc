"""One question's embedding (`embed_question`, warm) by two code trees, interleaved in one run.

    .venv/bin/python benchmarks/bench_question_embed.py --before /path/to/old-checkout \
        [--after .] [--model minilm] [--questions ../shared/eval/scifact/queries.jsonl] \
        [--rounds 4] [--json]

Each tree gets a worker process (its own PYTHONPATH, cwd the tree) that loads the model and
embeds every question once untimed; the driver then alternates rounds between them (ABAB…,
then BABA…), so both see the same machine load. Per question it records wall and thread-CPU
milliseconds of `embed_question`. It prints p50/mean/p95 per side and after/before ratios,
and how far the two trees' vectors are apart (the smallest cosine over the questions) and
how far each tree's question vectors are from its own float32 batch path (`embed_batch`).

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_question_embed.py --products

instead times one product of each of MiniLM's four weight shapes for a few token counts, in
one process on one BLAS thread (best of 5 × 100 calls, the weights hot in cache): bfloat16
through `bf16.dot` (weights packed once, the question's rows streamed) and `bf16.dot_t`
(the weights streamed against the rows packed), against numpy float32 on the weights as
stored ((out, in), read transposed) and pre-transposed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_ab import interleaved  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "scifact" / "queries.jsonl"

WORKER = r"""
import json, sys, time
from pathlib import Path
import numpy as np
from kbtools.embed.registry import get_embedder
model, questions_file, vectors_file = sys.argv[1:4]
questions = [json.loads(line)["query"] for line in
             Path(questions_file).read_text(encoding="utf-8").split("\n") if line.strip()]
embedder = get_embedder(model)
asked = np.concatenate([embedder.embed_question(q) for q in questions])
batch = embedder.embed_batch(questions)
np.save(vectors_file, asked)
print(json.dumps({"ready": float((asked * batch).sum(axis=1).min())}), flush=True)
for _ in sys.stdin:
    took = []
    for q in questions:
        t0, c0 = time.perf_counter(), time.thread_time()
        embedder.embed_question(q)
        took.append([(time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000])
    print(json.dumps(took), flush=True)
"""


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(quantile(values, 0.5), 3), "mean": round(statistics.fmean(values), 3),
            "p95": round(quantile(values, 0.95), 3)}


def products() -> None:
    """Per-product microseconds of the candidate ways to multiply a question's rows."""
    import time

    from threadpoolctl import threadpool_limits

    if not os.environ.get("PYTHONPATH"):
        sys.path.insert(0, str(ROOT))
    from kbtools.embed import bf16

    def best(fn: Callable[[], object]) -> float:
        for _ in range(10):
            fn()
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(100):
                fn()
            runs.append((time.perf_counter() - t0) / 100 * 1e6)
        return min(runs)

    rng = np.random.default_rng(0)
    print("tokens  in→out       bf16.dot  bf16.dot_t  numpy x@W.T  numpy x@Wt  (µs)")
    with threadpool_limits(1, user_api="blas"):
        for n in (8, 16, 23, 32, 48):
            for d_in, d_out in ((384, 1152), (384, 384), (384, 1536), (1536, 384)):
                w = rng.standard_normal((d_out, d_in)).astype(np.float32)
                wt = np.ascontiguousarray(w.T)
                x = rng.standard_normal((n, d_in)).astype(np.float32)
                packed, rows = bf16.pack(w), bf16.matrix(w)
                times = [best(partial(bf16.dot, x, packed)), best(partial(bf16.dot_t, rows, x)),
                         best(partial(np.matmul, x, w.T)), best(partial(np.matmul, x, wt))]
                print(f"{n:6d}  {d_in:4d}→{d_out:<5d}  " + "  ".join(f"{t:10.1f}" for t in times))


def main() -> None:
    if "--products" in sys.argv[1:]:
        products()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, type=Path, help="checkout of the old code")
    ap.add_argument("--after", default=ROOT, type=Path, help="checkout of the new code")
    ap.add_argument("--model", default="minilm", help="registry name of the embedder")
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sides = ("before", "after")
    workers = {}
    to_float32: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-qe-") as tmp:
        for side in sides:
            tree = getattr(args, side).resolve()
            env = dict(os.environ, PYTHONPATH=str(tree), HF_HUB_OFFLINE="1")
            proc = subprocess.Popen(
                [sys.executable, "-c", WORKER, args.model, str(args.questions.resolve()),
                 str(Path(tmp) / f"{side}.npy")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("{"):
                sys.exit(f"bench_question_embed: the {side} worker failed to start")
            to_float32[side] = json.loads(line)["ready"]
            workers[side] = proc
        vectors = {side: np.load(Path(tmp) / f"{side}.npy") for side in sides}
    between = float((vectors["before"] * vectors["after"]).sum(axis=1).min())
    wall, cpu = interleaved(workers, args.rounds)
    report: dict[str, object] = {
        side: {"wall_ms": summary(wall[side]), "cpu_ms": summary(cpu[side]),
               "questions": len(wall[side]), "min_cosine_to_float32": round(to_float32[side], 6)}
        for side in sides}
    report["ratio"] = {f"{kind}_{stat}": round(
        summary(data["after"])[stat] / summary(data["before"])[stat], 3)
        for kind, data in (("wall", wall), ("cpu", cpu)) for stat in ("p50", "mean", "p95")}
    report["min_cosine_between_trees"] = round(between, 6)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.model}: {len(wall['before'])} warm questions per side "
          f"({args.questions.name}), interleaved over {args.rounds} rounds")
    for side in sides:
        c, w = summary(cpu[side]), summary(wall[side])
        print(f"  {side:6} thread CPU p50 {c['p50']:.2f} ms  mean {c['mean']:.2f}  p95 "
              f"{c['p95']:.2f}   (wall p50 {w['p50']:.2f}  p95 {w['p95']:.2f})   min cosine "
              f"to its float32 path {to_float32[side]:.6f}")
    ratio = report["ratio"]
    assert isinstance(ratio, dict)
    print(f"  after/before: CPU p50 {ratio['cpu_p50']:.2f}x  mean {ratio['cpu_mean']:.2f}x  "
          f"p95 {ratio['cpu_p95']:.2f}x   (wall p50 {ratio['wall_p50']:.2f}x  p95 "
          f"{ratio['wall_p95']:.2f}x)")
    print(f"  min cosine between the trees' question vectors: {between:.6f}")


if __name__ == "__main__":
    main()
