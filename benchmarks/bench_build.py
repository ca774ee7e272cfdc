"""Build figures on ../shared/corpora/tidb-docs-cn (1,222 Chinese docs, ~47k chunks).

    .venv/bin/python benchmarks/bench_build.py [--out bench-out/tidb]

Prints: full build wall time, chunks/s, peak RSS and artifact sizes; rebuild after editing
one paragraph of one document (wall time, chunks re-embedded); and `kb watch` latency from
save to queryable on the same corpus. The corpus is copied to a temp dir (the shared copy is
read-only); the embedding cache lives in --out so a second run measures a warm build.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.build.pipeline import BuildOptions, build  # noqa: E402
from kbtools.config import load_config  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.search import search  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "tidb-docs-cn"


def sizes(dist: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in dist.rglob("*"):
        if p.is_file():
            rel = p.relative_to(dist).parts
            key = "/".join(rel[:2]) if rel[0] in ("data", "index") else rel[0]
            out[key] = out.get(key, 0) + p.stat().st_size
    return dict(sorted(out.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "tidb"))
    args = ap.parse_args()
    out = Path(args.out).resolve()  # the watch below runs with the corpus as its root
    work = Path(tempfile.mkdtemp(prefix="kb-bench-"))
    corpus = work / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns(".git"))
    cfg = load_config(ROOT, overrides={"paths": {"cache": str(out / "cache")}})
    dist = out / "dist"

    t0 = time.perf_counter()
    s = build(cfg, BuildOptions(corpus=corpus, out=dist, lenient=True, progress=False))
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"full build: {s.documents} docs, {s.chunks} chunks in {wall:.1f}s "
          f"({s.chunks / wall:.0f} chunks/s), {s.embedded} embedded / {s.reused} from cache, "
          f"peak RSS {rss:.0f} MiB")
    print("  stages:", ", ".join(f"{k} {v:.1f}s" for k, v in s.seconds.items()))
    for k, v in sizes(dist).items():
        print(f"  {k:<22} {v / 1e6:8.2f} MB")

    doc = sorted(corpus.rglob("*.md"))[100]
    text = doc.read_text(encoding="utf-8")
    para = next(p for p in text.split("\n\n") if len(p) > 80 and not p.startswith(("#", "|", "`", "-")))
    doc.write_text(text.replace(para, para + " 这是基准测试追加的一句话。", 1), encoding="utf-8")
    t0 = time.perf_counter()
    s2 = build(cfg, BuildOptions(corpus=corpus, out=dist, lenient=True, progress=False))
    print(f"rebuild after one-paragraph edit of {doc.name}: {time.perf_counter() - t0:.1f}s, "
          f"{s2.embedded} chunks re-embedded of {s2.chunks}")

    # watch latency on the same corpus: in-process watcher, save, wait for the update
    from kbtools.build.pipeline import corpus_config
    from kbtools.build.watch import watch

    wcfg = corpus_config(cfg, corpus)
    updates: list = []
    stop = threading.Event()
    # the watcher's first build (every chunk cached) and its model warm-up end in its first
    # report, the "watching" line a user waits for; the save is timed from after it
    th = threading.Thread(target=watch, args=(wcfg, dist, updates.append, stop, True, True),
                          daemon=True)
    th.start()
    t0 = time.perf_counter()
    while not updates and time.perf_counter() - t0 < 600:
        time.sleep(0.02)
    print(f"kb watch: ready (first build, model loaded) in {time.perf_counter() - t0:.2f}s")
    time.sleep(0.5)
    t0 = time.perf_counter()
    probe = f"kbwatchprobe{int(time.time())}"
    doc.write_text(doc.read_text(encoding="utf-8") + f"\n\n追加段落：{probe}。\n", encoding="utf-8")
    while len(updates) < 2 and time.perf_counter() - t0 < 600:
        time.sleep(0.02)
    latency = time.perf_counter() - t0
    stop.set()
    ok = search(open_index(dist), probe, k=3).results
    err = updates[1].error if len(updates) > 1 else "no update"
    print(f"kb watch: save → queryable in {latency:.2f}s on {s2.chunks} chunks "
          f"(found: {any(probe in r.text for r in ok)}; error: {err})")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
