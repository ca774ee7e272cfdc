"""MiniLM in builds: the numpy packed encoder (`kbtools.embed.bert_packed`, what a build runs
now) against sentence-transformers text by text on one torch thread (what it ran before), on
the English chunks of a built index, rounds interleaved in one process.

    .venv/bin/python benchmarks/bench_minilm_build.py --index DIST [--rounds 2] [--batch 64]

Prints, per round, each runtime's process CPU seconds and wall seconds over the same texts
(the packed encoder in batches of `--batch` texts, as a build sends them; one BLAS thread,
as a build runs it), the import + load cost of each in a fresh interpreter (torch's import
is what a cold build paid before), the lowest cosine between the two, and whether the packed
vectors are the same bits reversed and text by text.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.embed.registry import get_reference_embedder  # noqa: E402
from kbtools.embed.sentence_models import minilm_reference  # noqa: E402

LOAD = {
    "numpy": "from kbtools.embed.registry import get_reference_embedder as g; "
             "g('minilm').embed_batch(['warm'])",
    "sentence-transformers": "from kbtools.embed.sentence_models import minilm_reference as m; "
                             "m('minilm').embed_batch(['warm'])",
}


def english_texts(index: Path) -> list[str]:
    """The distinct texts of `index` embedded with minilm, in shard order."""
    texts: list[str] = []
    for shard in sorted((index / "data" / "chunks").glob("*.jsonl")):
        for line in shard.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "minilm" in record["models"]:
                texts.append(record["embed_text"])
    return list(dict.fromkeys(texts))


def timed(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, float, float]:
    """`fn()` and the process CPU and wall seconds it took."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def load_cost(name: str) -> tuple[float, float]:
    """(CPU, wall) seconds of a fresh interpreter that imports and loads runtime `name`."""
    code = ("import resource, time; t = time.perf_counter(); " + LOAD[name] + "; "
            "r = resource.getrusage(resource.RUSAGE_SELF); "
            "print(r.ru_utime + r.ru_stime, time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    cpu, wall = out.stdout.split()[-2:]
    return float(cpu), float(wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", required=True, type=Path, help="a built index (its data/chunks)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    texts = english_texts(args.index)
    print(f"{len(texts)} English texts, {sum(map(len, texts))} characters")
    packed, ref = get_reference_embedder("minilm"), minilm_reference("minilm")
    packed.embed_batch(texts[:2])
    ref.embed_batch(texts[:2])

    def run_packed() -> np.ndarray:
        return np.concatenate([packed.embed_batch(texts[i:i + args.batch])
                               for i in range(0, len(texts), args.batch)])

    for r in range(args.rounds):
        ours, cpu, wall = timed(run_packed)
        theirs, rcpu, rwall = timed(lambda: ref.embed_batch(texts))
        print(f"round {r + 1}: numpy packed {cpu:.2f} CPU-s / {wall:.2f} s wall; "
              f"sentence-transformers text by text {rcpu:.2f} CPU-s / {rwall:.2f} s wall; "
              f"CPU ratio {cpu / rcpu:.2f}")
    cosines = (ours * theirs).sum(axis=1)
    print(f"lowest cosine numpy vs sentence-transformers: {cosines.min():.6f}")
    same = (np.array_equal(packed.embed_batch(texts[::-1])[::-1], ours)
            and np.array_equal(np.concatenate([packed.embed_batch([t]) for t in texts]), ours))
    print(f"packed vectors the same bits reversed and text by text: {same}")
    for name in LOAD:
        cpu, wall = load_cost(name)
        print(f"import + load in a fresh process, {name}: {cpu:.2f} CPU-s / {wall:.2f} s wall")


if __name__ == "__main__":
    main()
