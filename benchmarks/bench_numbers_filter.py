"""A filtered vector search on a real `milvus-lite server`, as `MilvusCandidates._kept` sends
it (`numbers_filter`) against the allowed numbers listed (`numbers_expression`, what the
tree before sent), alternating, the same run.

    .venv/bin/python benchmarks/bench_numbers_filter.py [--rows 54645] [--rounds 4]

A scratch collection (`num` primary key, 512 random floats, HNSW M=16 cosine) in a temp
dir; 16% of its rows marked as without the model's own vector (never a hit). Per allowed
set (a folder, 200 documents, 5,000 and 12,000 random chunks): the filter's length each
way, median wall ms each way and their ratio, and how many of the 50 hits are the same.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kbtools.engine.candidates import (  # noqa: E402
    MilvusCandidates,
    numbers_expression,
    numbers_filter,
)
from kbtools.engine.milvus import connect_url  # noqa: E402
from tests.milvus_server import MilvusLite  # noqa: E402

DIM, WANT = 512, 50


def main() -> None:
    import pymilvus as pm

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=54645)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    n_rows = args.rows
    with tempfile.TemporaryDirectory() as tmp:
        server = MilvusLite(Path(tmp) / "data")
        try:
            run(pm, server, n_rows, args.rounds)
        finally:
            server.stop()


def run(pm, server: MilvusLite, n_rows: int, rounds: int) -> None:  # type: ignore[no-untyped-def]
    c = pm.MilvusClient(uri=f"http://127.0.0.1:{server.port}")
    schema = c.create_schema(auto_id=False)
    schema.add_field("num", pm.DataType.INT64, is_primary=True)
    schema.add_field("vec", pm.DataType.FLOAT_VECTOR, dim=DIM)
    ip = c.prepare_index_params()
    ip.add_index("vec", index_type="HNSW", metric_type="COSINE",
                 params={"M": 16, "efConstruction": 64})
    c.create_collection("b", schema=schema, index_params=ip)
    rng = np.random.default_rng(1)
    for s in range(0, n_rows, 5000):
        v = rng.standard_normal((min(5000, n_rows - s), DIM)).astype(np.float32)
        c.insert("b", [{"num": s + i, "vec": row.tolist()} for i, row in enumerate(v)])
    c.flush("b")
    c.load_collection("b")
    engine = connect_url(f"milvus://127.0.0.1:{server.port}/default")
    source = MilvusCandidates(engine, "b", {"use": "vec"}, {"use": 0.84}, 128)
    free = rng.random(n_rows) < 0.16
    has = ~free
    nums = np.arange(n_rows)
    folder = (nums >= n_rows * 20 // 55) & (nums < n_rows * 20 // 55 + 7800)
    docs = np.isin(nums // 45, rng.choice(n_rows // 45, min(200, n_rows // 90), replace=False))
    cases = {"folder 7.8k": folder & has, "200 documents": docs & has,
             "random 5k": np.isin(nums, rng.choice(n_rows, min(5000, n_rows // 10), replace=False)) & has,
             "random 12k": np.isin(nums, rng.choice(n_rows, min(12000, n_rows // 4), replace=False)) & has}
    params = {"metric_type": "COSINE", "params": {"ef": math.ceil(128 / 0.84)}}
    for name, keep in cases.items():
        took: dict[str, list[float]] = {"before": [], "after": []}
        same = []
        matched, filt = numbers_filter(keep, free)
        listed = numbers_expression(np.flatnonzero(keep))
        for r in range(rounds):
            q = [rng.standard_normal(DIM).astype(np.float32).tolist()]
            sides = [("before", lambda q=q, f=listed: source._search(q, "vec", WANT, f, params)),
                     ("after", lambda q=q, k=keep: source._kept(q, "vec", WANT, k, params, 128,
                                                                 free))]
            got = {}
            for label, ask in sides if r % 2 == 0 else sides[::-1]:
                t0 = time.perf_counter()
                got[label] = ask()
                took[label].append(time.perf_counter() - t0)
            same.append(len({h[0] for h in got["before"]} & {h[0] for h in got["after"]}))
        b, a = (float(np.median(took[k])) * 1000 for k in ("before", "after"))
        print(f"{name:14} allowed {int(keep.sum()):6} matched {int(matched.sum()):6}  filter "
              f"chars {len(listed):6} -> {len(filt):5}  before {b:7.1f} ms  after {a:7.1f} ms  "
              f"({a / b:.2f}x)  same hits {min(same)}-{max(same)}/{WANT}", flush=True)


if __name__ == "__main__":
    main()
