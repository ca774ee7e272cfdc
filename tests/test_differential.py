"""Differential test: incremental work equals a full rebuild.

A seeded sequence of edits (paragraphs, headings, front matter incl. `verified`, tables,
documents added, deleted, renamed and moved, images, synonyms, the user dictionary,
schemas, kb.toml; some committed, some not) is applied to a Git repository of example
knowledge. After each step the index a `kb build` updates in place (every cache warm, index/
derived from the previous one), the index a watcher's memo updates (`kb watch`: blame and
reviews kept between saves) and, after a commit, a device's index derived from the release
it served, must equal a `kb build --no-cache` of the same tree: data/ and the manifest byte
for byte, the BM25 files, the store's rows and the answers of `kb query --json`.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

from kbtools.build.history import HistoryMemo
from kbtools.build.memo import BuildMemo
from kbtools.build.pipeline import BuildOptions, build
from kbtools.build.watch import rebuild
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.index.layout import ReleaseLayout
from kbtools.index.selfcheck import check_derived
from kbtools.ship.device import served_release
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync
from tests.kbfixtures import PAGE, copy_example
from tests.test_incremental import TEST_HASH, answers, tree
from tests.test_release_helpers import git

# documents that link only among themselves (a deleted or moved one may break a link: the
# step is then refused by every build alike, and undone)
DOCS = ["knowledge/crops/wheat-scab.md", "knowledge/crops/sprayer-calibration.md",
        "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/pesticide-operator-safety.md", "knowledge/crops/field-survey-methods.md",
        "knowledge/engineering/adr-0001-sqlite-on-devices.md",
        "knowledge/equipment/hx260-ch05-fault-codes.md", "knowledge/_dict.txt",
        "knowledge/_synonyms.txt"]
Edit = Callable[[random.Random, Path], str]


def _docs(repo: Path) -> list[Path]:
    return sorted((repo / "knowledge").rglob("*.md"))


def _rewrite(path: Path, pattern: str, repl: str) -> bool:
    text = path.read_text(encoding="utf-8")
    new = re.sub(pattern, repl, text, count=1, flags=re.M)
    path.write_text(new, encoding="utf-8")
    return new != text


def paragraph(r: random.Random, repo: Path) -> str:
    d = r.choice(_docs(repo))
    _rewrite(d, r"^([A-Za-z\u4e00-\u9fff][^\n|#>:]{20,})$", r"\1 Calibrate every 200 hours。")
    return f"paragraph {d.name}"


def heading(r: random.Random, repo: Path) -> str:
    d = r.choice(_docs(repo))
    _rewrite(d, r"^(##+ .+)$", r"\1（修订）")
    return f"heading {d.name}"


def front_matter(r: random.Random, repo: Path) -> str:
    d = r.choice(_docs(repo))
    field = r.choice([("verified: true", "verified: false"), ("title: ", "title: v2 "),
                      ("verified_at: .*", 'verified_at: "2026-03-20T10:00:00+08:00"')])
    _rewrite(d, f"^{field[0]}", field[1])
    return f"front matter {d.name} {field[1]}"


def table(r: random.Random, repo: Path) -> str:
    d = r.choice([p for p in _docs(repo) if "\n|" in p.read_text(encoding="utf-8")])
    _rewrite(d, r"^(\|[^\n]*[^\s|:-][^\n]*)\|$", r"\1 注 |")
    return f"table {d.name}"


def add(r: random.Random, repo: Path) -> str:
    p = repo / "knowledge/engineering" / r.choice(["", "sub/"]) / f"new-{r.randrange(1000)}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(PAGE.format(title=p.stem, source="test", body=r.choice(
        ["Replace the pump seal every 2000 hours. 水泵密封每两千小时更换。",
         "| 参数 | 值 |\n|---|---|\n| 扭矩 | 40 N·m |"])), encoding="utf-8")
    return f"add {p.name}"


def remove(r: random.Random, repo: Path) -> str:
    d = r.choice(_docs(repo))
    d.unlink()
    return f"delete {d.name}"


def rename(r: random.Random, repo: Path) -> str:
    d = r.choice(_docs(repo))
    to = repo / "knowledge" / r.choice(["moved", d.parent.name]) / f"{d.stem}-r.md"
    to.parent.mkdir(parents=True, exist_ok=True)
    d.rename(to)
    return f"rename {d.name}"


def image(r: random.Random, repo: Path) -> str:
    img = r.choice(sorted((repo / "assets/images").glob("*.png")))
    img.write_bytes(img.read_bytes() + b"\0")
    return f"image {img.name}"


def words(r: random.Random, repo: Path) -> str:
    name = r.choice(["_synonyms.txt", "_dict.txt"])
    line = f"扭矩{r.randrange(99)} = torque{r.randrange(99)}\n" if name == "_synonyms.txt" \
        else f"水泵密封{r.randrange(9)} 5 n\n"
    with open(repo / "knowledge" / name, "a", encoding="utf-8") as f:
        f.write(line)
    return name


def settings(r: random.Random, repo: Path) -> str:
    if r.random() < 0.5:
        _rewrite(repo / "kb.toml", r'^non_content_fields = \["tags"', 'non_content_fields = ["summary", "tags"')
        return "kb.toml review"
    schema = repo / "schemas/frontmatter.schema.json"
    data = json.loads(schema.read_text(encoding="utf-8"))
    data.setdefault("properties", {})[f"extra_{r.randrange(99)}"] = {"type": "string"}
    schema.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return "schema"


EDITS: list[Edit] = [paragraph, paragraph, heading, front_matter, front_matter, table, add,
                     remove, rename, image, words, settings]


def _store(dist: Path) -> list[list[tuple]]:
    con = sqlite3.connect(ReleaseLayout(dist).store)
    try:
        names = [n for (n,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [con.execute(f'SELECT * FROM "{n}" ORDER BY 1, 2').fetchall() for n in names]
    finally:
        con.close()


def _same(index: Path, full: Path) -> None:
    assert tree(index, "data") == tree(full, "data")
    assert (index / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
    assert tree(index, "index/bm25") == tree(full, "index/bm25")
    assert _store(index) == _store(full)
    assert check_derived(index) == []
    # (a device's answers name the release they come from; a build has none)
    assert [{**a, "release": None} for a in answers(index)] == \
        [{**a, "release": None} for a in answers(full)]


def _built(cfg, out: Path, **opts) -> bool:
    try:
        build(cfg, BuildOptions(out=out, progress=False, **opts))
    except FindingsError:
        return False
    return True


def test_incremental_watch_and_device_equal_a_full_build(tmp_path):
    r = random.Random(15)
    repo = copy_example(tmp_path / "repo", DOCS)
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    git(repo, "commit", "-qam", "test-hash")
    art, dev = tmp_path / "art.git", tmp_path / "device"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    inc, watched, memo = tmp_path / "inc", tmp_path / "watched", BuildMemo(history=HistoryMemo())
    assert _built(load_config(repo), inc)
    assert rebuild(load_config(repo), watched, (), memo=memo).error is None
    built = 0
    for step in range(8):
        did = [r.choice(EDITS)(r, repo) for _ in range(r.randint(1, 2))]
        commit = step % 2 == 1
        if commit:
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", f"step {step}: {did}")
        cfg = load_config(repo)
        full = tmp_path / f"full{step}"
        ok = _built(cfg, full, use_cache=False)
        assert _built(cfg, inc) is ok, did
        assert (rebuild(cfg, watched, (), memo=memo).error is None) is ok, did
        if not ok:  # refused alike (a link broken): undone, and built again
            git(repo, "reset", "-q", "--hard", "HEAD~1" if commit else "HEAD")
            git(repo, "clean", "-qfd", "knowledge")
            assert _built(load_config(repo), inc)
            assert rebuild(load_config(repo), watched, (), memo=memo).error is None
            continue
        built += 1
        _same(inc, full)
        _same(watched, full)
        if commit:
            make_release(repo, inc, remote=str(art))
            sync(str(art), dev)
            served = served_release(dev)
            assert served is not None
            _same(served, full)
        shutil.rmtree(full)
    assert built >= 5
