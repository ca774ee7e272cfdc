"""Bytes on the wire of `kb serve`'s pages for a client on a slow link (issue 13).

    .venv/bin/python benchmarks/bench_wire.py [--prose-kb 300] [--rows 2000] [--keep DIR]

Builds a scratch knowledge repository (two documents of the example knowledge and two
generated ones: a document of about `--prose-kb` KB of Chinese and English prose under
headings, and a table of `--rows` rows), starts a real `kb serve` (uvicorn, loopback, as
`kb serve` configures it) and asks each page over a raw socket twice, once as a client that
takes no compression and once as a browser does (``Accept-Encoding: gzip, deflate, br``):
every byte received (status line, headers and body) is counted. Then a reload of each
compressed page with its ETag (a 304 or the whole page again), and the stylesheet and
script as a page's reload asks for them. Prints one table.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kbfixtures import copy_example  # noqa: E402
from servefixtures import DOCS, git  # noqa: E402

from kbtools.build.pipeline import BuildOptions, build  # noqa: E402
from kbtools.config import load_config  # noqa: E402
from kbtools.serve.app import create_app, server_config  # noqa: E402
from kbtools.serve.staticfiles import static_url  # noqa: E402

PROSE = "knowledge/equipment/manual-big.md"
TABLE = "knowledge/equipment/fault-log-big.md"
FRONT = ["category: equipment-maintenance", "source: 生成 generated", "author: 测试员",
         'timestamp: "2026-02-01T08:00:00+08:00"', "verified: false", "lang: zh",
         "equipment: [HX-260 注塑机]", "---", ""]
BROWSER = "gzip, deflate, br"


def prose_document(kb: int) -> str:
    """About `kb` KB of a maintenance manual: numbered sections of Chinese and English."""
    lines = ["---", "title: HX-260 维护手册 Maintenance manual", *FRONT, "# 维护手册 Manual", ""]
    n = 0
    while sum(len(x.encode()) + 1 for x in lines) < kb * 1024:
        n += 1
        lines += [f"## {n} 液压系统第 {n} 项检查 Hydraulic check {n}", "",
                  f"检查液压油温与冷却水流量，第 {n} 项：油温高于 55℃ 时开大冷却水阀，清洗冷却器，"
                  f"并记录进出水温差。Check the oil temperature and the cooling water flow "
                  f"(item {n}): above 55 °C open the valve wider, clean the cooler and log the "
                  "inlet and outlet temperatures.", "",
                  f"- 扭矩 {20 + n % 30} N·m，间隔 {n % 12 + 1} 个月", f"- torque {20 + n % 30} N·m, "
                  f"every {n % 12 + 1} months", ""]
    return "\n".join(lines) + "\n"


def table_document(rows: int) -> str:
    lines = ["---", "title: HX-260 故障记录 Fault log", *FRONT, "# 故障记录 Fault log", "",
             "| 编号 | 故障码 | 现象 Symptom | 处理 Action |", "|---|---|---|---|"]
    lines += [f"| {n + 1} | E{n % 60:02d} | 液压油温过高 oil temperature high, 第 {n} 次 "
              f"| 开大冷却水阀，清洗冷却器 open the cooling water valve, clean cooler {n} |"
              for n in range(rows)]
    return "\n".join(lines) + "\n"


def fetch(port: int, path: str, extra: str = "") -> tuple[int, int, dict[str, str]]:
    """(status, every byte received, headers) of one GET over a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=300) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}\r\n"
                  .encode())
        data = bytearray()
        while part := s.recv(1 << 16):
            data += part
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
    return int(head[0].split()[1]), len(data), headers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prose-kb", type=int, default=300)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--keep", type=Path, help="build here (and keep it) instead of a temp dir")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-wire-"))
    root = base / "kr"
    if not (root / "dist").is_dir():
        copy_example(root, DOCS)
        for rel, text in ((PROSE, prose_document(args.prose_kb)), (TABLE, table_document(args.rows))):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        git(root, "add", "-A")
        git(root, "-c", "user.name=b", "-c", "user.email=b@example.org", "commit", "-q", "-m", "big")
        t0 = time.monotonic()
        build(load_config(root), BuildOptions(progress=False))
        print(f"built in {time.monotonic() - t0:.0f} s: {root}", file=sys.stderr)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(server_config(create_app(root / "dist"), "127.0.0.1", port))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    pages = {
        f"document ({(root / PROSE).stat().st_size // 1024} KB of Markdown)": f"/doc/{quote(PROSE)}",
        f"table of {args.rows} rows": f"/doc/{quote(TABLE)}",
        "results page (k=10)": "/?q=" + quote("液压油温过高怎么处理"),
        "/api/search JSON (k=20)": "/api/search?k=20&q=" + quote("oil temperature high"),
        "stylesheet": static_url("style.css"),
        "script": static_url("search.js"),
    }
    print("| response | plain bytes | gzip bytes | ratio | reload with its ETag |")
    print("|---|---|---|---|---|")
    for what, path in pages.items():
        _, plain, _ = fetch(port, path)
        status, packed, headers = fetch(port, path, f"Accept-Encoding: {BROWSER}\r\n")
        assert status == 200, (path, status)
        reload = "—"
        if "immutable" in headers.get("cache-control", ""):
            reload = "not asked (kept a year)"
        elif "etag" in headers:
            again, size, _ = fetch(port, path, f"Accept-Encoding: {BROWSER}\r\n"
                                   f"If-None-Match: {headers['etag']}\r\n")
            reload = f"{again}, {size} bytes"
        print(f"| {what} | {plain:,} | {packed:,} | {plain / packed:.1f}× | {reload} |")
    srv.should_exit = True


if __name__ == "__main__":
    main()
