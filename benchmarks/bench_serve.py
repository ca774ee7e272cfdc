"""Load on `kb serve`: concurrent clients doing mixed search/read against a big index.

    .venv/bin/python benchmarks/bench_serve.py [--index /work/bench/tidb54k/dist]
        [--clients 20] [--seconds 30] [--read-share 0.3] [--n-inprocess 200]

In one run: first the in-process baseline (`kbtools.query.search.search` on the same index,
warm, the tidb FAQ questions: what `kb query` does after start-up), then a real `kb serve`
(uvicorn, one process, loopback) loaded by `--clients` concurrent HTTP clients for
`--seconds`: each repeatedly asks `/api/search` (a question of the set) or, with
probability `--read-share`, `/api/read` of a section an earlier search cited. Prints
requests/s, p50/p95/p99 latency per kind, errors (any non-200 or transport error; must be
0), and the server-side search p95 (``Server-Timing: search``) against the in-process p95
(the ratio must be ≤ 2). ``queue`` is the time a search waited for the release's search
lock: searches on one release run one at a time (docs/serve.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.fsutil import read_json_lines  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.search import search  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) if values else float("nan")


def in_process(index_dir: Path, questions: list[str], n: int) -> tuple[list[float], list[dict]]:
    """Warm search latencies (ms) in this process, and the sections the results cite."""
    index = open_index(index_dir)
    search(index, questions[0], k=5)  # load everything once
    lat, cited = [], []
    for q in (questions * (n // len(questions) + 1))[:n]:
        t0 = time.perf_counter()
        resp = search(index, q, k=5)
        lat.append((time.perf_counter() - t0) * 1000)
        cited += [{"doc": r.doc, "line_start": r.line_start,
                   "line_end": min(r.line_end, r.line_start + 80)} for r in resp.results[:2]]
    index.close()
    return lat, cited


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(index_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "serve", "--index", str(index_dir),
                             "--port", str(port)], env=env, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/api/healthz", timeout=2):
                return proc, url
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"kb serve did not start: {proc.communicate()[1].decode()[-2000:]}")


def server_timing(header: str, name: str) -> float | None:
    for part in header.split(","):
        key, _, rest = part.strip().partition(";dur=")
        if key == name:
            return float(rest)
    return None


async def load(url: str, questions: list[str], cited: list[dict], clients: int,
               seconds: float, read_share: float) -> dict[str, list]:
    out: dict[str, list] = {"search": [], "read": [], "search_server": [], "queue": [],
                            "errors": []}
    stop = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(n: int) -> None:
        rng = random.Random(n)
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
            while time.monotonic() < stop:
                reading = cited and rng.random() < read_share
                t0 = time.perf_counter()
                try:
                    if reading:
                        r = await http.get("/api/read", params=rng.choice(cited))
                    else:
                        r = await http.get("/api/search", params={"q": rng.choice(questions),
                                                                  "k": 5})
                except httpx.HTTPError as exc:
                    out["errors"].append(f"{type(exc).__name__}: {exc}")
                    continue
                ms = (time.perf_counter() - t0) * 1000
                if r.status_code != 200:
                    out["errors"].append(f"{r.status_code} {r.text[:200]}")
                    continue
                if reading:
                    out["read"].append(ms)
                else:
                    out["search"].append(ms)
                    timing = r.headers.get("server-timing", "")
                    out["search_server"].append(server_timing(timing, "search"))
                    out["queue"].append(server_timing(timing, "queue"))

    await asyncio.gather(*(client(n) for n in range(clients)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", default="/work/bench/tidb54k/dist")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--read-share", type=float, default=0.3)
    ap.add_argument("--n-inprocess", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    index_dir = Path(args.index)
    questions = [q["query"] for q in read_json_lines(QUESTIONS)]

    local, cited = in_process(index_dir, questions, args.n_inprocess)
    proc, url = start_server(index_dir)
    try:
        t0 = time.perf_counter()
        got = asyncio.run(load(url, questions, cited, args.clients, args.seconds,
                               args.read_share))
        wall = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    done = len(got["search"]) + len(got["read"])
    server = [x for x in got["search_server"] if x is not None]
    queue = [x for x in got["queue"] if x is not None]
    figures = {
        "index": str(index_dir), "clients": args.clients, "seconds": round(wall, 1),
        "requests": done, "requests_per_s": round(done / wall, 1), "errors": len(got["errors"]),
        "search": {"n": len(got["search"]), **{f"p{p}": round(pct(got["search"], p), 1)
                                              for p in (50, 95, 99)}},
        "read": {"n": len(got["read"]), **{f"p{p}": round(pct(got["read"], p), 1)
                                          for p in (50, 95, 99)}},
        "all": {f"p{p}": round(pct(got["search"] + got["read"], p), 1) for p in (50, 95, 99)},
        "server_search_p95_ms": round(pct(server, 95), 1),
        "server_queue_p95_ms": round(pct(queue, 95), 1),
        "inprocess_search_p95_ms": round(pct(local, 95), 1),
        "inprocess_search_p50_ms": round(pct(local, 50), 1),
    }
    figures["server_vs_inprocess_p95"] = round(figures["server_search_p95_ms"]
                                               / figures["inprocess_search_p95_ms"], 2)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    else:
        print(f"kb serve under load: {args.clients} clients × {wall:.0f} s on {index_dir}")
        print(f"  {done} requests, {figures['requests_per_s']} req/s, errors {figures['errors']}")
        for kind in ("search", "read", "all"):
            f = figures[kind]
            print(f"  {kind:<6} p50 {f['p50']} ms  p95 {f['p95']} ms  p99 {f['p99']} ms"
                  + (f"  (n={f['n']})" if "n" in f else ""))
        print(f"  server-side search p95 {figures['server_search_p95_ms']} ms vs in-process "
              f"p95 {figures['inprocess_search_p95_ms']} ms: ×{figures['server_vs_inprocess_p95']}"
              f" (lock wait p95 {figures['server_queue_p95_ms']} ms)")
    for line in got["errors"][:5]:
        print(f"  error: {line}", file=sys.stderr)
    if figures["errors"] or figures["server_vs_inprocess_p95"] > 2:
        sys.exit(1)


if __name__ == "__main__":
    main()
