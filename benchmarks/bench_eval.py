"""Retrieval quality on the dev sets in ../shared/eval: hybrid vs BM25-only vs vector-only,
measured in one run on the same index.

    .venv/bin/python benchmarks/bench_eval.py [--sets cmrc2018,scifact,tidb_faq_zh]
        [--out bench-out] [--languages en=minilm] [--limit N]

Builds each corpus with `kb build --corpus … --lenient` (embedding cache in bench-out/,
so re-runs are fast), then prints one metrics table per set (kbtools.query.quality).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.build.pipeline import BuildOptions, build  # noqa: E402
from kbtools.config import load_config  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.quality import evaluate, load_questions, table  # noqa: E402

SHARED = ROOT.parent / "shared" / "eval"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="cmrc2018,scifact,tidb_faq_zh")
    ap.add_argument("--out", default=str(ROOT / "bench-out"))
    ap.add_argument("--languages", default="",
                    help="extra model per language, e.g. en=minilm, or none (USE only)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="override a kb.toml value, e.g. chunk.min_chars=40 (repeatable)")
    ap.add_argument("--tag", default="", help="suffix for the output directory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    langs = dict(kv.split("=", 1) for kv in args.languages.split(",") if kv)
    overrides = {"paths": {"cache": str(out / "cache")}}
    if args.languages:  # default: kb.toml / built-in defaults (en = minilm)
        overrides["embedding"] = {"languages": {} if args.languages == "none" else langs}
    for item in args.set:
        key, value = item.split("=", 1)
        section, name = key.split(".", 1)
        overrides.setdefault(section, {})[name] = json.loads(value) if value[:1].isdigit() or \
            value in ("true", "false") else value
    report = {}
    for name in args.sets.split(","):
        cfg = load_config(ROOT, overrides=overrides)
        dest = out / f"{name}{'-' + args.languages.replace('=', '-') if args.languages else ''}{args.tag}"
        t0 = time.perf_counter()
        stats = build(cfg, BuildOptions(corpus=SHARED / name / "corpus", out=dest, lenient=True,
                                        progress=False))
        build_s = time.perf_counter() - t0
        questions = load_questions(SHARED / name / "queries.jsonl")
        if args.limit:
            questions = questions[: args.limit]
        index = open_index(dest)
        rows = [evaluate(index, questions, mode=m) for m in ("hybrid", "bm25", "vector")]
        report[name] = {"build_seconds": round(build_s, 1), "chunks": stats.chunks,
                        "embedded": stats.embedded, "rows": rows}
        if not args.json:
            print(f"\n## {name}: {stats.documents} docs, {stats.chunks} chunks, build "
                  f"{build_s:.1f}s ({stats.embedded} embedded), {len(questions)} questions")
            print(table(rows), flush=True)
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
