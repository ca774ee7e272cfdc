"""Throughput of `kb check` (path + schema checks) on a real corpus.

    .venv/bin/python benchmarks/bench_check.py [CORPUS_DIR] [--jobs N] [--repeat N]

Defaults to ../shared/corpora/tidb-docs-cn (1,222 Chinese docs with foreign front matter,
so schema checks run lenient, or not at all). For each mode it prints documents per
second of wall time and per CPU-second of this process (the second figure does not
depend on other load on the machine; it is only meaningful for --jobs 1):

- cold: every document parsed (first run, CI on a fresh clone);
- warm: Markdown parses reused from the scan cache (unchanged documents; paths, anchors
  and schemas are still checked afresh).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.docfiles import find_markdown

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "tidb-docs-cn"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: auto)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per mode; the best is kept")
    args = ap.parse_args()
    n = len(find_markdown([args.corpus]))
    with tempfile.TemporaryDirectory() as cache_dir:
        cfg = load_config(args.corpus, overrides={"paths": {"cache": cache_dir}})
        modes = (("cold, schema off", {"schema_checks": False}),
                 ("cold, lenient", {"lenient": True}),
                 ("warm, lenient", {"lenient": True, "cache": True}))
        check_paths([args.corpus], cfg, lenient=True, cache=True, jobs=args.jobs)  # fill
        for label, kwargs in modes:
            best_wall, best_cpu, findings = float("inf"), float("inf"), []
            for _ in range(args.repeat):
                w0, c0 = time.perf_counter(), time.process_time()
                findings = check_paths([args.corpus], cfg, jobs=args.jobs, **kwargs)
                best_wall = min(best_wall, time.perf_counter() - w0)
                best_cpu = min(best_cpu, time.process_time() - c0)
            top = ", ".join(f"{c}={k}" for c, k in Counter(f.code for f in findings).most_common(3))
            cpu = f"{n / best_cpu:6,.0f} docs/CPU-s" if args.jobs == 1 else "CPU n/a (workers)"
            print(f"{label:17s} {n} docs: {n / best_wall:6,.0f} docs/s wall ({best_wall:.2f}s), "
                  f"{cpu} (jobs={args.jobs or 'auto'}); {len(findings)} findings: {top}")


if __name__ == "__main__":
    main()
