"""Milvus vs the local files on one index, same run: publish time, query p50/p95, parity.

    .venv/bin/python benchmarks/bench_engine.py --index /work/bench/tidb54k/dist \
        [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] [--n 200] [--engine URL] [--json]
        [--serve]

Without --engine a `milvus-lite server` is started on a free loopback port (data in a
temp dir) and stopped at the end. Publishes the index (timed: rows, index build, load,
count check, alias), then runs the same questions against both sides interleaved (local,
Milvus, local, …) so both see the same machine load, and prints warm p50/p95 per side,
the Milvus/local ratios, and parity: top-10 overlap, identical top-1, same no-answer
verdicts (with the questions that differ). With --serve, also the web app: the time the
first request takes to open the published release (its ``__meta`` parts and files copied
from the engine), then ``/api/search`` through `kb serve`'s app (in process, Starlette's
test client) over the local release and over the engine, interleaved the same way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.engine.cache import cache_dir  # noqa: E402
from kbtools.engine.milvus import connect_url  # noqa: E402
from kbtools.engine.publish import check_release, publish  # noqa: E402
from kbtools.engine.remote import EngineReader  # noqa: E402
from kbtools.fsutil import read_json_lines  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.search import search  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"


def _start_server(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = Path(sys.executable).parent / "milvus-lite"  # the venv's, else the one on PATH
    exe = exe if exe.is_file() else Path(shutil.which("milvus-lite") or exe)
    proc = subprocess.Popen([str(exe), "server", "--data-dir", str(data), "--host",
                             "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t0 > 60:
                raise SystemExit("milvus-lite did not start") from None
            time.sleep(0.05)
    print(f"milvus-lite started in {time.perf_counter() - t0:.2f}s on port {port}",
          file=sys.stderr)
    return proc, f"milvus://127.0.0.1:{port}/bench"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    ap.add_argument("--questions", default=str(QUESTIONS))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--engine", default=None, help="an existing Milvus (default: start one)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--serve", action="store_true", help="also time kb serve's /api/search")
    args = ap.parse_args()
    qs = [q["query"] for q in read_json_lines(Path(args.questions))][: args.n]

    tmp = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    proc = None
    try:
        url = args.engine
        if url is None:
            proc, url = _start_server(tmp / "milvus")
        engine = connect_url(url, create_db=True)
        t0 = time.perf_counter()
        checked = check_release(Path(args.index))
        verify_s = time.perf_counter() - t0
        res = publish(engine, checked,
                      progress=lambda m: print(f"publish: {m}", file=sys.stderr, end="\r"))
        publish_s = time.perf_counter() - t0
        disk = sum(f.stat().st_size for f in (tmp / "milvus").rglob("*") if f.is_file()) \
            if proc is not None else None
        local = open_index(Path(args.index))
        reader = EngineReader(engine)
        for q in qs[:5]:  # warm both (models, caches)
            search(local, q), search(reader.current(), q)
        times: dict[str, list[float]] = {"local": [], "milvus": []}
        same_top = same_verdict = 0
        overlaps: list[float] = []
        diffs = []
        for i, q in enumerate(qs):
            order = [("local", lambda: local), ("milvus", reader.current)]
            out = {}
            for name, opened in order if i % 2 == 0 else order[::-1]:
                t = time.perf_counter()  # Milvus: alias resolved per question, as MCP does
                out[name] = search(opened(), q, k=10, keep_results=True)
                times[name].append((time.perf_counter() - t) * 1000)
            a = [r.chunk_id for r in out["local"].results]
            b = [r.chunk_id for r in out["milvus"].results]
            overlaps.append(len(set(a) & set(b)) / len(a) if a else float(not b))
            same_top += a[:1] == b[:1]
            same_verdict += out["local"].no_answer == out["milvus"].no_answer
            if a[:1] != b[:1] or out["local"].no_answer != out["milvus"].no_answer:
                diffs.append({"query": q, "local": a[:3], "milvus": b[:3]})
        fig = {
            "index": args.index, "chunks": local.store.count(), "questions": len(qs),
            "verify_s": round(verify_s, 2), "publish_s": round(publish_s, 2),
            "published": res.changed,
            "engine_disk_mb": round(disk / 1e6, 1) if disk is not None else None,
            "local_index_mb": round(sum(f.stat().st_size for f in Path(args.index).rglob("*")
                                        if f.is_file()) / 1e6, 1),
            **{f"{side}_{p}_ms": round(_pct(t, p), 1) for side, t in times.items()
               for p in (50, 95)},
            "p50_ratio": round(statistics.median(times["milvus"])
                               / statistics.median(times["local"]), 2),
            "p95_ratio": round(_pct(times["milvus"], 95) / _pct(times["local"], 95), 2),
            "top10_overlap": round(sum(overlaps) / len(overlaps), 4),
            "top1_identical": round(same_top / len(qs), 4),
            "verdicts_identical": round(same_verdict / len(qs), 4),
            "differences": diffs[:10],
        }
        if args.serve:
            fig.update(serve_figures(Path(args.index), url, qs))
            if proc is not None:  # the release files copied for a server that is gone
                shutil.rmtree(cache_dir(engine, res.collection), ignore_errors=True)
        engine.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(fig, ensure_ascii=False, indent=2))
        return
    print(f"\n{fig['chunks']} chunks, {fig['questions']} questions")
    print(f"publish: {fig['publish_s']}s (verify {fig['verify_s']}s); engine data "
          f"{fig['engine_disk_mb']} MB vs release dir {fig['local_index_mb']} MB")
    print(f"local : p50 {fig['local_50_ms']} ms  p95 {fig['local_95_ms']} ms")
    print(f"milvus: p50 {fig['milvus_50_ms']} ms  p95 {fig['milvus_95_ms']} ms  "
          f"(×{fig['p50_ratio']} / ×{fig['p95_ratio']})")
    print(f"parity: top-10 overlap {fig['top10_overlap']}, identical top-1 "
          f"{fig['top1_identical']}, same no-answer {fig['verdicts_identical']}")
    for d in fig["differences"]:
        print(f"  differs: {d['query']}  local {d['local']}  milvus {d['milvus']}")
    if args.serve:
        print(f"kb serve --engine: first request opens the release in {fig['serve_open_s']}s")
        print(f"/api/search local : p50 {fig['serve_local_50_ms']} ms  p95 "
              f"{fig['serve_local_95_ms']} ms")
        print(f"/api/search milvus: p50 {fig['serve_milvus_50_ms']} ms  p95 "
              f"{fig['serve_milvus_95_ms']} ms  (×{fig['serve_p50_ratio']} / "
              f"×{fig['serve_p95_ratio']})")


def serve_figures(index: Path, url: str, qs: list[str]) -> dict[str, float]:
    """`/api/search` latency through the web app over the local release and over the
    engine, interleaved, and the engine app's first (release-opening) request."""
    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app, open_source

    source = open_source(None, url)
    t0 = time.perf_counter()
    source.get()
    opened = time.perf_counter() - t0
    times: dict[str, list[float]] = {"local": [], "milvus": []}
    with TestClient(create_app(index), base_url="http://127.0.0.1") as local, \
            TestClient(create_app(None, source=source), base_url="http://127.0.0.1") as remote:
        clients = [("local", local), ("milvus", remote)]
        for q in qs[:5]:
            local.get("/api/search", params={"q": q}), remote.get("/api/search", params={"q": q})
        for i, q in enumerate(qs):
            for name, client in clients if i % 2 == 0 else clients[::-1]:
                t = time.perf_counter()
                resp = client.get("/api/search", params={"q": q, "k": 10})
                times[name].append((time.perf_counter() - t) * 1000)
                if resp.status_code != 200:
                    raise SystemExit(f"{name} /api/search failed: {resp.text}")
    return {"serve_open_s": round(opened, 2),
            **{f"serve_{side}_{p}_ms": round(_pct(t, p), 1) for side, t in times.items()
               for p in (50, 95)},
            "serve_p50_ratio": round(statistics.median(times["milvus"])
                                     / statistics.median(times["local"]), 2),
            "serve_p95_ratio": round(_pct(times["milvus"], 95) / _pct(times["local"], 95), 2)}


if __name__ == "__main__":
    main()
