"""Benchmark: parse + chunk + render of a 10 KB document, and chunks/s over a real corpus.

    .venv/bin/python benchmarks/bench_chunk.py [--corpus ../shared/corpora/tidb-docs-cn] [-n 15]
        [--callouts 500] [--manual 300] [--table 2500] [--chapters 300]

Prints (1) the median of parse+chunk, of parse+chunk+render with the SVG cache warm, and of
parse+chunk+render with a cold cache (LaTeX runs) for a generated 10 KB Chinese/English
document with 3 formulas and 2 tables, and of parse+chunk for a generated document of
`--callouts` Obsidian callouts (each with a list), and the chunking CPU time of a manual of
`--manual` numbered sections (a formula and a 「见 N 节」 reference each) against one four
times as long, with their ratio (linear: about 4; chunks × sections: about 16), and the same
for a table of `--table` rows, once a fault-code table and once a decision table (`table_rows`),
and once a fault-code table whose rows cite 「参见 N.M 节」 in `--chapters` sibling chapter files
(`cited_seconds`: each reference looked up, not every chapter scanned);
(2) chunks/s of read+parse+chunk over every Markdown file of the corpus (cross-document
resolver included, built once).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import SourceDoc, parse_source, read_doc
from kbtools.docfiles import find_markdown
from kbtools.markdown.doctree import Document, parse
from kbtools.render.formula import backend_problem, render_formulas
from kbtools.render.table_csv import render_tables

ROOT = Path(__file__).resolve().parents[1]
FORMULAS = [
    r"\text{用药量}(\text{mL}) = \frac{\text{药液量}(\text{L}) \times 1000}{\text{稀释倍数}}",
    r"\text{病情指数} = \frac{\sum (n_i \times v_i)}{N \times V_{max}} \times 100",
    r"Q = \frac{q \times 666.7}{v \times w}",
]


def sample_document(target_bytes: int = 10_000) -> str:
    """A deterministic ~10 KB document: headings, prose, lists, 2 tables, 3 formulas, code."""
    parts = ["---\ntitle: 基准文档 Benchmark\ncategory: crops\n---\n\n# 基准文档 Benchmark\n"]
    para = ("小麦赤霉病在扬花期遇连续阴雨时极易流行，应在扬花初期喷药预防。"
            "The sprayer must be calibrated before each season, and the nozzle output recorded. ")
    n = 0
    while len("".join(parts).encode()) < target_bytes:
        n += 1
        parts.append(f"\n## {n} 章节 {n}\n\n{para * 3}\n\n1. 第一步：检查药箱。\n   - 子项\n"
                     "2. 第二步：检查压力，见 1 节。\n")
        if n <= 3:
            parts.append(f"\n公式 {n}：\n\n$$\n{FORMULAS[n - 1]}\n$$\n\n上式用于计算。\n")
        if n <= 2:
            rows = "".join(f"| E{n}{i:02d} | 原因 {i} | 处理步骤 {i}，完成后复位 |\n" for i in range(12))
            parts.append(f"\n<!-- csv: bench-{n}.csv -->\n| 故障码 | 原因 | 处理 |\n|---|---|---|\n{rows}")
        parts.append("\n```python\nprint('hello')\n```\n")
    return "".join(parts)


def callout_document(callouts: int) -> str:
    """A deterministic document of `callouts` Obsidian callouts (a section of four a
    heading), each titled, holding a paragraph and a list of three steps: chunks inside
    callouts, the case whose titles the chunker looks up per chunk."""
    parts = ["---\ntitle: 提示基准 Callouts\ncategory: crops\n---\n\n# 提示基准 Callouts\n"]
    for n in range(callouts):
        if n % 4 == 0:
            parts.append(f"\n## {n // 4 + 1} 检修项目 {n // 4 + 1}\n")
        kind = ("warning", "tip", "note", "danger")[n % 4]
        parts.append(f"\n> [!{kind}] 注意事项 {n}\n> 检修第 {n} 号阀组前必须泄压并挂牌上锁。\n>\n"
                     + "".join(f"> {i}. 第 {i} 步：检查第 {n} 号阀组的密封圈和紧固螺栓，"
                               "确认无渗漏后再进行下一步。\n" for i in (1, 2, 3)))
    return "".join(parts)


def one_run(text: str, out: Path | None) -> int:
    src = parse_source(text, ROOT / "bench.md", "knowledge/bench.md")
    doc = parse(src)
    chunks = chunk_document(src, ChunkConfig(), doc=doc)
    if out is not None:
        latex = [c.extra["latex"] for c in chunks if c.kind == "formula"]
        render_formulas(latex, out)
        render_tables([(src.rel, t) for t in doc.tables()], out / "tables")
    return len(chunks)


def median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def table_rows(rows: int, decision: bool) -> str:
    """A document of one table of `rows` rows: fault codes (codes, meanings with numbers and
    words of comparison, parts, intervals; no decision table), or a decision table
    (temperature range, humidity and rainy-day bounds → level and action)."""
    if decision:
        head = "| 温度 | 湿度 | 雨日 | 等级 | 措施 |\n|---|---|---|---|---|\n"
        body = "".join(f"| {i}~{i + 1}℃ | 不低于 {i % 90}% | 超过 {i % 7} 天 | 等级 {i % 4} | "
                       f"处理步骤 {i} |\n" for i in range(rows))
    else:
        head = "| 代码 | 含义 | 配件 | 间隔 | 次数 |\n|---|---|---|---|---|\n"
        body = "".join(f"| E{i:05d} | 液压压力低于 {i % 20} MPa 时报警 and the relief valve leaks | "
                       f"O-ring {i} | between {i % 50} and {i % 50 + 10} hours | 不超过 {i % 9} 次 |\n"
                       for i in range(rows))
    return f"---\ntitle: 表 Table\ncategory: crops\n---\n\n# 表 Table\n\n{head}{body}"


def chunk_seconds(text: str) -> float:
    """Best of two: process CPU seconds chunking `text`, its parse made before."""
    src = parse_source(text, Path("/r/knowledge/t.md"), "knowledge/t.md")
    doc = parse(src)
    return _best_of_two(lambda: chunk_document(src, doc=doc))


def manual_seconds(sections: int) -> float:
    """Best of two: process CPU seconds chunking the generated manual of `sections` sections
    (`tests/test_chunk_scale.manual`), its parse and heading index made before."""
    sys.path.insert(0, str(ROOT))  # the test's generator, so both chunk one document
    from tests.test_chunk_scale import manual
    src = parse_source(manual(sections), Path("/r/knowledge/m.md"), "knowledge/m.md")
    index = HeadingIndex.build([src])
    return _best_of_two(lambda: chunk_document(src, resolver=index))


def cited_seconds(rows: int, chapters: int) -> float:
    """Best of two: process CPU seconds chunking a fault-code table of `rows` rows, each
    citing a section of one of `chapters` chapter files in its folder, with their heading
    index (made before)."""
    def doc(rel: str, text: str) -> tuple[SourceDoc, Document]:
        src = parse_source(f"---\ntitle: {rel}\n---\n\n{text}", Path("/r") / rel, rel)
        return src, parse(src)
    head = "# 故障表\n\n| 代码 | 含义 | 处理 |\n|---|---|---|\n"
    body = "".join(f"| E-{i:05d} | 液压压力低，见 [E-{i * 7 % rows:05d}](#e-{i * 7 % rows:05d}) | "
                   f"参见 {i % chapters + 1}.{i % 7 + 1} 节，更换 O 形圈 {i} |\n" for i in range(rows))
    table = doc("knowledge/m/faults.md", head + body)
    sib = [doc(f"knowledge/m/c{k:04d}.md", f"# 第{k}章\n\n## {k}.1 检查\n\n正文。\n")
           for k in range(1, chapters + 1)]
    index = HeadingIndex.build([d for _, d in [table, *sib]])
    return _best_of_two(lambda: chunk_document(table[0], doc=table[1], resolver=index))


def _best_of_two(work: Callable[[], object]) -> float:
    """The fewer process CPU seconds of two runs of `work`."""
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/corpora/tidb-docs-cn")
    ap.add_argument("-n", type=int, default=15, help="repetitions for the medians")
    ap.add_argument("--callouts", type=int, default=500,
                    help="callouts of the generated callout document (0: skip it)")
    ap.add_argument("--manual", type=int, default=300,
                    help="sections of the smaller generated manual (0: skip it)")
    ap.add_argument("--table", type=int, default=2500,
                    help="rows of the smaller generated tables (0: skip them)")
    ap.add_argument("--chapters", type=int, default=300,
                    help="chapter files the cross-referencing fault-code table cites (0: skip it)")
    args = ap.parse_args()

    text = sample_document()
    n_chunks = one_run(text, None)
    print(f"document: {len(text.encode())} bytes, {text.count('$$') // 2} formulas, "
          f"{text.count('<!-- csv')} tables, {n_chunks} chunks")
    print(f"parse+chunk                      median {median_ms(lambda: one_run(text, None), args.n):8.1f} ms")
    if args.callouts:
        many = callout_document(args.callouts)
        n_many = one_run(many, None)
        ms = median_ms(lambda: one_run(many, None), max(3, args.n // 3))
        print(f"{args.callouts} callouts ({len(many.encode())} bytes, {n_many} chunks): "
              f"parse+chunk median {ms:8.1f} ms")
    if args.manual:
        small, large = manual_seconds(args.manual), manual_seconds(4 * args.manual)
        print(f"manual of {args.manual} / {4 * args.manual} sections: chunk CPU {small:.2f} / "
              f"{large:.2f} s, ratio {large / small:.1f} (linear: 4)")
    for decision in (False, True) if args.table else ():
        small, large = (chunk_seconds(table_rows(n, decision)) for n in (args.table, 4 * args.table))
        print(f"{'decision' if decision else 'fault-code'} table of {args.table} / "
              f"{4 * args.table} rows: chunk CPU {small:.2f} / {large:.2f} s, "
              f"ratio {large / small:.1f} (linear: 4)")
    if args.table and args.chapters:
        small, large = (cited_seconds(n, args.chapters) for n in (args.table, 4 * args.table))
        print(f"fault-code table citing {args.chapters} chapters, {args.table} / {4 * args.table} "
              f"rows: chunk CPU {small:.2f} / {large:.2f} s, ratio {large / small:.1f} (linear: 4)")
    if backend_problem():
        print(f"render skipped: {backend_problem()}")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            warm = Path(tmp) / "warm"
            one_run(text, warm)
            ms = median_ms(lambda: one_run(text, warm), args.n)
            print(f"parse+chunk+render (SVG cached)  median {ms:8.1f} ms")
            counter = iter(range(10**6))
            ms = median_ms(lambda: one_run(text, Path(tmp) / f"cold{next(counter)}"), max(3, args.n // 3))
            print(f"parse+chunk+render (uncached)    median {ms:8.1f} ms  (one LaTeX + dvisvgm run)")

    if args.corpus.is_dir():
        files = find_markdown([args.corpus])
        t0 = time.perf_counter()
        srcs = [read_doc(p, args.corpus) for p in files]
        docs = [parse(s) for s in srcs]
        index = HeadingIndex.build(docs)
        t1 = time.perf_counter()
        total = sum(len(chunk_document(s, doc=d, resolver=index)) for s, d in zip(srcs, docs, strict=True))
        t2 = time.perf_counter()
        size = sum(len(s.text.encode()) for s in srcs) / 1e6
        print(f"corpus {args.corpus.name}: {len(files)} docs, {size:.1f} MB, {total} chunks; "
              f"read+parse+index {t1 - t0:.1f} s, chunk {t2 - t1:.1f} s; "
              f"{total / (t2 - t0):.0f} chunks/s end to end ({total / (t2 - t1):.0f} chunks/s chunking)")
    else:
        print(f"corpus {args.corpus} not found; skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
