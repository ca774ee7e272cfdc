"""A document page of `kb serve` on a long manual: first view and repeated views.

    .venv/bin/python benchmarks/bench_docpage.py [--lines 2000] [--views 20] [--formulas N]

Builds (test-hash embedder, in a temporary folder) a repository holding one generated
Chinese/English maintenance manual of about `--lines` lines (numbered chapters whose
sections repeat the same headings, paragraphs, a long table per chapter), then asks the
app (Starlette test client, in process, no network) for the manual's page as a field
reader does: the cited lines of a result with its question highlighted. Prints, in the
same run, the wall time per request (and a cold view's CPU time) of

- ``cold``: every request is the document's first view in a release already open (the
  page cache, the document's parse and its decision tables emptied before each one),
- ``render``: every request renders the page from the document (the page cache and the
  document's parse emptied before each one, its decision tables kept: what every view
  cost before the caches),
- ``first``: distinct requests (a different cited range each: a page not kept, rendered
  from the document's kept parse, `serve.docparts`; before session 38 parsed again each),
- ``repeat``: the same request again (the page cache holds it),
- ``opened``: the first request of all (the release opened, the document parsed, its
  decision tables read: once per release),

and the ratios first / render and repeat / render (median). Run main's copy of this script
for the baseline in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from starlette.testclient import TestClient  # noqa: E402

from kbtools.build.pipeline import BuildOptions, build  # noqa: E402
from kbtools.config import load_config  # noqa: E402
from kbtools.serve.app import create_app  # noqa: E402
from kbtools.serve.source import ServedIndex  # noqa: E402
from tests.hostile import make_repo  # noqa: E402
from tests.kbfixtures import titled_page  # noqa: E402

DOC = "knowledge/manual.md"


def manual(lines: int) -> str:
    """A manual of about `lines` lines: chapters of the same three sections, each with a
    paragraph, a list and a table of 20 rows."""
    out: list[str] = []
    chapter = 0
    while len(out) < lines:
        chapter += 1
        out += [f"## 第 {chapter} 章 泵组 P-{chapter:03d} Pump group", ""]
        for section in ("检查 Inspection", "故障 Faults", "保养 Maintenance"):
            out += [f"### {section}", "",
                    f"泵组 P-{chapter:03d} 运行时检查密封温度与振动，温度超过 80 ℃ 时停机。"
                    " Check the seal temperature and vibration while running.", "",
                    "- 关闭进口阀 close the inlet valve", "- 检查轴承 check the bearing",
                    "- 记录读数 record the readings", "",
                    "| 代码 Code | 含义 Meaning | 处理 Action |", "|---|---|---|"]
            out += [f"| E{chapter:02d}{r:02d} | 密封温度高 seal hot {r} | 停机检查 stop {r} |"
                    for r in range(20)]
            out.append("")
    return titled_page("泵组维护手册 Pump maintenance manual", "\n".join(out))


def formula_manual(sections: int) -> str:
    """A manual of `sections` sections, each a paragraph, a display formula (its own) and a
    small table: what a calculation handbook is (`--formulas`)."""
    out: list[str] = []
    for s in range(sections):
        out += [f"## {s + 1}. 泵 P-{s:03d} 出口压力 Outlet pressure", "",
                f"出口压力按下式计算，系数 {s}。 The outlet pressure, factor {s}.", "", "$$",
                f"P_{{{s}}} = \\frac{{\\rho g h}}{{1000}} + \\sqrt{{{s} + x^2}}", "$$", "",
                "| 参数 Item | 值 Value | 单位 Unit |", "|---|---|---|",
                f"| 扬程 head | {s} | m |", f"| 流量 flow | {2 * s} | m³/h |", ""]
    return titled_page("泵压力计算手册 Pump pressure handbook", "\n".join(out))


CPU: list[float] = []  # the process's CPU time of each request timed (ms), in order


def timed(client: TestClient, url: str) -> float:
    """The request's wall time (ms); its CPU time (all threads) is appended to `CPU`: on a
    loaded machine the wall time measures the other processes as much as this one."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = client.get(url)
    dt = (time.perf_counter() - t0) * 1000
    CPU.append((time.process_time() - c0) * 1000)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--views", type=int, default=20)
    ap.add_argument("--formulas", type=int, default=0,
                    help="a handbook of this many sections of a formula and a table instead")
    args = ap.parse_args()
    text = formula_manual(args.formulas) if args.formulas else manual(args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "kr", docs={DOC: text})
        build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
        n = len((repo / DOC).read_text(encoding="utf-8").splitlines())
        source = ServedIndex(repo / "dist")
        with TestClient(create_app(None, source=source), base_url="http://127.0.0.1") as client:
            url = f"/doc/{DOC}?lines=40-60&q=密封温度"
            opened = timed(client, url)  # the release opened, the models warm
            served = source.get()
            pages = getattr(served, "pages", None)  # none before the cache: the baseline code
            prepared = getattr(served, "prepared", None)  # none before session 38
            cold = []
            for _ in range(args.views):
                for cache in (pages, prepared):
                    if cache is not None:
                        cache.clear()
                served.cache.pop("decision_tables", None)
                cold.append(timed(client, url))
            cold_cpu = CPU[-args.views:]
            render = []
            for _ in range(args.views):
                for cache in (pages, prepared):
                    if cache is not None:
                        cache.clear()
                render.append(timed(client, url))
            first = [timed(client, f"/doc/{DOC}?lines={10 + 30 * i}-{20 + 30 * i}&q=密封温度")
                     for i in range(args.views)]
            timed(client, url)
            repeat = [timed(client, url) for _ in range(args.views)]
    med = {k: statistics.median(v) for k, v in
           (("cold", cold), ("render", render), ("first", first), ("repeat", repeat))}
    print(f"manual: {n} lines; {args.views} views each (ms, median / max)")
    print(f"  opened  {opened:8.1f}  (the first request: the release opened, its parse)")
    for k, v in (("cold", cold), ("render", render), ("first", first), ("repeat", repeat)):
        print(f"  {k:7s} {med[k]:8.1f} / {max(v):8.1f}")
    print(f"  cold CPU {statistics.median(cold_cpu):7.1f} / {max(cold_cpu):8.1f}"
          "  (the process's CPU time of a cold view, all threads)")
    print(f"  first / render: {med['first'] / med['render']:.3f}"
          + ("" if prepared is not None else "  (no kept parse in this code)"))
    print(f"  repeat / render: {med['repeat'] / med['render']:.3f}"
          + ("" if pages is not None else "  (no page cache in this code)"))


if __name__ == "__main__":
    main()
