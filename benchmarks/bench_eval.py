"""Retrieval quality on the dev sets in ../shared/eval: hybrid vs BM25-only vs vector-only,
measured in one run on the same index.

    .venv/bin/python benchmarks/bench_eval.py [--sets cmrc2018,scifact,tidb_faq_zh,aliyun_ecs_zh]
        [--out bench-out] [--cache DIR] [--reuse] [--code DIR] [--languages en=minilm]
        [--limit N] [--eval-dir DIR]

Builds each corpus with `kb build --corpus … --lenient` (embedding cache in bench-out/cache,
or --cache DIR, so re-runs are fast; --reuse keeps an index already built there), then prints
one metrics table per set (kbtools.query.quality). --code measures another checkout's
kbtools (e.g. main) on the same indexes, for a same-run baseline.

``aliyun_ecs_zh`` is the question → documentation-page task: `queries_linked.jsonl` over the
corpus minus the FAQ pages listed in `faq_docs.txt` (the README of that set). The corpus
without them is a directory of hard links under the output directory (no copy of the text).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# --code DIR: import kbtools from another checkout (a same-run baseline on the same indexes)
CODE = Path(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv[:-1] else ROOT
sys.path.insert(0, str(CODE.resolve()))

from kbtools.build.pipeline import BuildOptions, build  # noqa: E402
from kbtools.config import load_config  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.quality import evaluate, load_questions, table  # noqa: E402

# the sets: DIR/NAME/corpus/ and DIR/NAME/queries.jsonl (--eval-dir, $KB_EVAL_DIR)
SHARED = Path(os.environ.get("KB_EVAL_DIR") or ROOT.parent / "shared" / "eval")
# set → (questions file, file listing corpus documents to leave out)
TASKS = {"aliyun_ecs_zh": ("queries_linked.jsonl", "faq_docs.txt")}


# suffix of a derived set → the OpenCC conversion of its base set's corpus and questions
CONVERSIONS = {"_hant": "s2twp", "_t2s": "t2s"}


def _derived(name: str) -> tuple[str, str] | None:
    """(base set, OpenCC configuration) of a derived set's name, else None."""
    for suffix, config in CONVERSIONS.items():
        if name.endswith(suffix):
            return name[: -len(suffix)], config
    return None


def corpus_of(name: str, out: Path) -> Path:
    """The set's corpus; for a task that leaves documents out, hard links to the rest; for a
    derived set, the base set's corpus converted."""
    if derived := _derived(name):
        return _converted(corpus_of(derived[0], out), out / "corpora" / name, derived[1])
    src = SHARED / name / "corpus"
    if name not in TASKS:
        return src
    left_out = {line.split("\t", 1)[0].strip() for line in
                (SHARED / name / TASKS[name][1]).read_text(encoding="utf-8").splitlines()}
    dest = out / "corpora" / name
    if not dest.is_dir():
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for f in sorted(src.iterdir()):
            if f.name not in left_out and not (tmp / f.name).exists():
                os.link(f, tmp / f.name)
        tmp.rename(dest)
    return dest


def _converter(config: str) -> Any:
    import opencc

    return opencc.OpenCC(config)


def _converted(src: Path, dest: Path, config: str) -> Path:
    """Every file of `src` converted by OpenCC `config` into `dest` (made once, renamed into
    place)."""
    if dest.is_dir():
        return dest
    cc = _converter(config)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    for f in sorted(src.iterdir()):
        if f.is_file():
            (tmp / f.name).write_text(cc.convert(f.read_text(encoding="utf-8")), encoding="utf-8")
    tmp.rename(dest)
    return dest


def _convert_value(cc: Any, value: Any, key: str = "") -> Any:
    """Strings of a question converted, except identifiers and document names."""
    if isinstance(value, str):
        return value if key in ("id", "doc", "source_path", "paragraph_id", "kind", "split") \
            else cc.convert(value)
    if isinstance(value, list):
        return [_convert_value(cc, v, key) for v in value]
    if isinstance(value, dict):
        return {k: _convert_value(cc, v, k) for k, v in value.items()}
    return value


def questions_of(name: str, out: Path) -> Path:
    """The set's questions file; for a derived set, the base set's questions converted."""
    if derived := _derived(name):
        base = questions_of(derived[0], out)
        dest = out / "corpora" / f"{name}.{base.name}"
        if not dest.is_file():
            cc = _converter(derived[1])
            lines = [json.dumps(_convert_value(cc, json.loads(line)), ensure_ascii=False)
                     for line in base.read_text(encoding="utf-8").splitlines() if line.strip()]
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(dest.name + ".tmp")
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            tmp.rename(dest)
        return dest
    return SHARED / name / (TASKS[name][0] if name in TASKS else "queries.jsonl")


def main() -> None:
    global SHARED
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="cmrc2018,scifact,tidb_faq_zh,aliyun_ecs_zh",
                    help="comma-separated; NAME_hant is NAME converted to Traditional")
    ap.add_argument("--out", default=str(ROOT / "bench-out"))
    ap.add_argument("--cache", default="", help="embedding cache directory (default OUT/cache)")
    ap.add_argument("--reuse", action="store_true",
                    help="evaluate an index already built in OUT instead of rebuilding it")
    ap.add_argument("--languages", default="",
                    help="extra model per language, e.g. en=minilm, or none (USE only)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="override a kb.toml value, e.g. chunk.min_chars=40 (repeatable)")
    ap.add_argument("--tag", default="", help="suffix for the output directory")
    ap.add_argument("--modes", default="hybrid,bm25,vector")
    ap.add_argument("--code", default=str(ROOT), help="kbtools checkout to measure")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--eval-dir", default="",
                    help="folder of the sets (NAME/corpus/, NAME/queries.jsonl; default: "
                         "$KB_EVAL_DIR, else ../shared/eval beside the checkout)")
    args = ap.parse_args()
    SHARED = Path(args.eval_dir) if args.eval_dir else SHARED
    for name in args.sets.split(","):
        base = _derived(name)[0] if _derived(name) else name
        if not (SHARED / base / "corpus").is_dir() or not questions_of(base, Path()).is_file():
            sys.exit(f"bench_eval: {SHARED / base}: no such set (expected corpus/ and "
                     f"{questions_of(base, Path()).name} in it; --eval-dir DIR)")
    out = Path(args.out).resolve()
    langs = dict(kv.split("=", 1) for kv in args.languages.split(",") if "=" in kv)
    overrides = {"paths": {"cache": str(Path(args.cache).resolve() if args.cache
                                        else out / "cache")}}
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
        if args.reuse and (dest / "manifest.json").is_file():
            chunks, docs, embedded = None, None, 0
        else:
            stats = build(cfg, BuildOptions(corpus=corpus_of(name, out), out=dest, lenient=True,
                                            progress=False))
            chunks, docs, embedded = stats.chunks, stats.documents, stats.embedded
        build_s = time.perf_counter() - t0
        questions = load_questions(questions_of(name, out))
        if args.limit:
            questions = questions[: args.limit]
        index = open_index(dest)
        # query settings apply to a reused index too (they are read from its manifest)
        index.manifest["config"]["values"]["query"].update(overrides.get("query", {}))
        rows = [evaluate(index, questions, mode=m) for m in args.modes.split(",")]
        for row in rows:  # the figures only; `kb eval --json` has each question's details
            row.pop("per_question")
        report[name] = {"build_seconds": round(build_s, 1), "chunks": chunks,
                        "embedded": embedded, "rows": rows}
        if not args.json:
            print(f"\n## {name}: {docs} docs, {chunks} chunks, build "
                  f"{build_s:.1f}s ({embedded} embedded), {len(questions)} questions")
            print(table(rows), flush=True)
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
