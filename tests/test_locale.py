"""Locales and time zones do not change what kb reads, builds or serves.

A knowledge repository's file names are UTF-8 bytes (Git keeps bytes, `kb check` refuses any
other); a process whose locale reads file names in another encoding (C with Python's locale
coercion off here, zh_CN.GB18030 on a device) runs `kb` in Python's UTF-8 mode
(`kbtools.cli.utf8_file_names`), so the same commit builds the same data/ and manifest
bytes under any locale and time zone, and arguments keep their text."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hostile import GOOD_DOC, KB, env, make_repo

ZH_NAME = "knowledge/水泵密封.md"
ZH_DOC = GOOD_DOC.replace("title: Pump maintenance", "title: 水泵密封更换").replace(
    "# Pump maintenance", "# 水泵密封更换\n\n灌溉水泵的机械密封每运行 2000 小时更换一次。")
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
                "PYTHONIOENCODING": ""}


def run(cwd: Path, *args: str, home: Path, **extra: str) -> subprocess.CompletedProcess[bytes]:
    environ = {**env(home), **extra}
    environ = {k: v for k, v in environ.items() if v != ""}
    return subprocess.run([*KB, *args], cwd=cwd, env=environ, capture_output=True, timeout=300)


def release_bytes(out: Path) -> dict[str, bytes]:
    """The manifest and every file of data/ (the release: the reproducibility contract)."""
    files = [out / "manifest.json", *sorted((out / "data").rglob("*"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in files if p.is_file()}


def test_a_build_is_the_same_bytes_under_any_locale_and_time_zone(tmp_path):
    repo = make_repo(tmp_path / "kb", docs={ZH_NAME: ZH_DOC})
    home = tmp_path / "home"
    ok = run(repo, "build", "-q", "--out", str(tmp_path / "utf8"), home=home,
             TZ="UTC", LC_ALL="C.UTF-8")
    assert ok.returncode == 0, ok.stderr
    ascii_build = run(repo, "build", "-q", "--out", str(tmp_path / "ascii"), home=home,
                      TZ="America/Los_Angeles", **ASCII_LOCALE)
    assert ascii_build.returncode == 0, ascii_build.stderr
    assert release_bytes(tmp_path / "ascii") == release_bytes(tmp_path / "utf8")
    docs = (tmp_path / "ascii" / "data" / "docs.jsonl").read_text(encoding="utf-8")
    assert f'"doc": "{ZH_NAME}"' in docs
    source = tmp_path / "ascii" / "data" / "source" / "knowledge"
    assert sorted(p.name for p in source.iterdir()) == ["good.md", "水泵密封.md"]
    # a Chinese question given in that locale keeps its text (and finds the document)
    res = run(repo, "query", "--no-log", "--index", str(tmp_path / "ascii"), "--json",
              "-k", "1", "水泵 机械密封 更换", home=home, TZ="Asia/Shanghai", **ASCII_LOCALE)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)  # an ASCII terminal gets \\u escapes: still JSON
    assert [r["doc"] for r in out["results"]] == [ZH_NAME]
