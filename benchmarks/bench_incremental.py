"""Work proportional to the change: this tree against a baseline tree, in the same run.

    .venv/bin/python benchmarks/bench_incremental.py --base /work/wt/i15-incr-base \
        [--docs 250] [--out bench-out/incr] [--model use]

On the first --docs documents of ../shared/corpora/tidb-docs-cn (all 1,222 by default), for
each code tree (the baseline, then this one, each in its own process) it prints

- rebuild after a one-paragraph edit of one document (warm caches, into the same dist/),
  with the build's stage times;
- `kb watch`: save → queryable (in-process watcher after its initial build, as `kb watch`
  runs; the same edit style);
- device re-derivation after a release that changed one document: the index/ of the new
  release derived (baseline: afresh; this tree: from the served release, then self-checked).

The embedder is `test-hash` (embedding is not what these figures measure; every vector
after the first build comes from the cache, shared by both trees); `--model use` takes the
settings' real models instead (kb.toml: USE, and MiniLM for English chunks), so the edited
chunks are embedded by them (the first build of each tree embeds everything once into the
shared cache: use a fresh --out, and --docs to bound it). The corpus is copied
to --out, so the shared copy is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "tidb-docs-cn"
EDIT = " 这是基准测试追加的一句话。"


def _paragraph(doc: Path) -> str | None:
    """The first plain paragraph of a document (None: it has none to edit)."""
    return next((p for p in doc.read_text(encoding="utf-8").split("\n\n")
                 if len(p) > 80 and not p.startswith(("#", "|", "`", "-", "<"))), None)


def _edit(doc: Path, marker: str) -> None:
    text, para = doc.read_text(encoding="utf-8"), _paragraph(doc)
    assert para is not None
    doc.write_text(text.replace(para, para + marker, 1), encoding="utf-8")


def run_tree(out: Path, label: str, model: str = "test-hash") -> dict[str, object]:
    """Measure the tree on sys.path (called in a child process)."""
    import inspect

    from kbtools.build.pipeline import BuildOptions, build, corpus_config
    from kbtools.build.watch import watch
    from kbtools.config import load_config
    from kbtools.index.materialize import materialize
    from kbtools.index.reader import open_index
    from kbtools.query.search import search

    corpus = out / f"corpus-{label}"
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.copytree(out / "corpus", corpus)
    over: dict[str, object] = {"paths": {"cache": str(out / "cache")}}
    if model == "test-hash":
        over["embedding"] = {"model": "test-hash", "languages": {"en": None}}
    cfg = load_config(ROOT, overrides=over)
    dist = out / f"dist-{label}"
    opts = BuildOptions(corpus=corpus, out=dist, lenient=True, progress=False)
    t0 = time.perf_counter()
    first = build(cfg, opts)
    res: dict[str, object] = {"chunks": first.chunks, "documents": first.documents,
                              "first_build_s": round(time.perf_counter() - t0, 2)}
    rel1 = out / f"rel1-{label}"
    shutil.rmtree(rel1, ignore_errors=True)
    shutil.copytree(dist, rel1)

    docs = sorted(corpus.rglob("*.md"))
    start = 100 if len(docs) > 120 else 0  # the first editable document from there
    doc = next(d for d in docs[start:] + docs[:start] if _paragraph(d) is not None)
    # each tree's own sentence: its chunk is not in the shared embedding cache (real models)
    _edit(doc, f"{EDIT[:-1]}（{label}{time.time_ns()}）。")
    t0 = time.perf_counter()
    second = build(cfg, opts)
    res["rebuild_s"] = round(time.perf_counter() - t0, 2)
    res["rebuild_stages"] = second.seconds
    res["rebuild_derivation"] = getattr(second, "derivation", "full")

    # device: the new release's index/ derived (from the served one when the tree can)
    rel2 = out / f"rel2-{label}"
    shutil.rmtree(rel2, ignore_errors=True)
    shutil.copytree(dist, rel2, ignore=shutil.ignore_patterns("index"))
    incremental = "previous" in inspect.signature(materialize).parameters
    t0 = time.perf_counter()
    if incremental:
        from kbtools.index.selfcheck import check_derived

        how = materialize(rel2, previous=rel1)
        problems = check_derived(rel2)
    else:
        how, problems = "full", []
        materialize(rel2)
    res["device_derive_s"] = round(time.perf_counter() - t0, 2)
    res["device_derivation"] = how
    res["device_problems"] = problems

    wcfg = corpus_config(cfg, corpus)
    updates: list[object] = []
    stop = threading.Event()
    # as `kb watch` runs: an initial build at start, then the save is timed
    th = threading.Thread(target=watch, args=(wcfg, dist, updates.append, stop, True, True),
                          daemon=True)
    th.start()
    while not updates:
        time.sleep(0.05)
    time.sleep(1.0)
    updates.clear()
    probe = f"kbwatchprobe{label}{int(time.time())}"
    t0 = time.perf_counter()
    _edit(doc, f" {probe}。")
    while not updates and time.perf_counter() - t0 < 1800:
        time.sleep(0.02)
    res["watch_s"] = round(time.perf_counter() - t0, 2)
    stop.set()
    found = search(open_index(dist), probe, k=10, keep_results=True).results
    res["watch_found"] = any(probe in r.text for r in found)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=False, help="baseline kbtools tree (e.g. a main worktree)")
    ap.add_argument("--docs", type=int, default=0, help="first N documents (0: all)")
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "incr"))
    ap.add_argument("--model", default="test-hash", choices=("test-hash", "use"),
                    help="test-hash (default) or use: the settings' real models")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    out = Path(args.out).resolve()
    if args.child:
        print(json.dumps(run_tree(out, args.child, args.model)))
        return
    corpus = out / "corpus"
    if not corpus.is_dir():
        docs = sorted(CORPUS.rglob("*.md"))
        for p in docs[:args.docs] if args.docs else docs:
            target = corpus / p.relative_to(CORPUS)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
    results = {}
    for label, tree in (("base", args.base), ("new", str(ROOT))):
        if not tree:
            continue
        env = dict(os.environ, PYTHONPATH=tree, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--out", str(out),
                               "--child", label, "--model", args.model], env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode:
            sys.exit(f"{label} failed:\n{proc.stderr[-3000:]}")
        results[label] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{label}: {json.dumps(results[label], ensure_ascii=False)}", flush=True)
    if "base" in results:
        b, n = results["base"], results["new"]
        print(f"\n{n['documents']} documents, {n['chunks']} chunks ({args.model} embedder)")
        for key, what in (("rebuild_s", "one-paragraph rebuild"),
                          ("watch_s", "kb watch save → queryable"),
                          ("device_derive_s", "device re-derive after a one-doc release")):
            print(f"  {what:<42} base {b[key]:7.2f}s   new {n[key]:7.2f}s   "
                  f"ratio {b[key] / max(n[key], 1e-9):5.1f}×")


if __name__ == "__main__":
    main()
