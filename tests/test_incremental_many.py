"""Incremental builds of a generated knowledge base of a few hundred documents (most of the
256 shards hold one or more, chunk numbers run through many of them), against full
`--no-cache` builds of the same tree: rounds of edits at once across shards — paragraphs
edited, documents added, deleted, renamed into another folder, retagged, a table changed —
each compared byte for byte (data/, manifest, BM25 files), row for row (the store) and
answer for answer."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.selfcheck import check_derived
from tests.test_incremental import answers, store_rows, tree

N = 300
OPTS = dict(progress=False, provenance=False)
FOLDERS = ("pumps", "valves", "水泵", "阀门")
QUESTIONS = ["seal wear on pump 17", "阀门 42 的密封圈多久更换", "torque of valve 120 bolts",
             "叶轮汽蚀 133", "what is the pressure limit of unit 250", "第 8 号设备的检查周期"]


def _doc(i: int, rng: random.Random, tag: str = "routine") -> str:
    """Document `i`: English or Chinese, two to four sections, a table in every fifth."""
    zh = i % 2 == 1
    title = f"设备 {i} 维护" if zh else f"Unit {i} maintenance"
    parts = [f"---\ntitle: {title}\ncategory: engineering\nproject: demo\nsource: test\n"
             f"author: alice@example.org\ntimestamp: \"2026-03-14T09:30:00+08:00\"\n"
             f"verified: false\ntags: [{tag}]\n---\n\n# {title}\n"]
    for s in range(rng.randint(2, 4)):
        if zh:
            parts.append(f"\n## 第 {s + 1} 节 检查\n\n第 {i} 号设备的检查周期为 {rng.randint(2, 90)} "
                         f"天。阀门 {i} 的密封圈每 {rng.randint(100, 900)} 小时更换，叶轮汽蚀 {i} "
                         f"时降低转速。\n")
        else:
            parts.append(f"\n## Section {s + 1} checks\n\nThe pressure limit of unit {i} is "
                         f"{rng.randint(2, 40)} bar. Seal wear on pump {i} is checked every "
                         f"{rng.randint(10, 90)} days; torque of valve {i} bolts is "
                         f"{rng.randint(20, 120)} N·m.\n")
    if i % 5 == 0:
        parts.append("\n## Limits\n\n| item | value |\n|---|---|\n"
                     f"| pressure {i} | {rng.randint(1, 9)} bar |\n| speed | {i} rpm |\n")
    return "".join(parts)


def _path(repo: Path, i: int) -> Path:
    return repo / "knowledge" / FOLDERS[i % len(FOLDERS)] / f"unit-{i:03}.md"


def _make(root: Path) -> Path:
    rng = random.Random(1)
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n',
                                  encoding="utf-8")
    for i in range(N):
        _path(root, i).parent.mkdir(parents=True, exist_ok=True)
        _path(root, i).write_text(_doc(i, rng), encoding="utf-8")
    return root


def _round(repo: Path, seed: int) -> None:
    """One save of many files: edits, adds, deletes, renames into another folder, retags."""
    rng = random.Random(seed)
    present = sorted(p for p in (repo / "knowledge").rglob("*.md"))
    picked = rng.sample(present, 40)
    for p in picked[:10]:  # a paragraph edited
        text = p.read_text(encoding="utf-8")
        p.write_text(text.replace("\n## ", f"\nRevised note {seed}: gasket creep.\n\n## ", 1),
                     encoding="utf-8")
    for p in picked[10:18]:
        p.unlink()
    for k, p in enumerate(picked[18:26]):  # renamed into another folder
        target = repo / "knowledge" / FOLDERS[(k + seed) % len(FOLDERS)] / f"moved-{seed}-{p.name}"
        p.rename(target)
    for p in picked[26:34]:
        text = p.read_text(encoding="utf-8")
        p.write_text(text.replace("tags: [routine]", f"tags: [urgent, round{seed}]"),
                     encoding="utf-8")
    for p in picked[34:40]:  # a table's cell, where there is one
        text = p.read_text(encoding="utf-8")
        p.write_text(text.replace(" rpm |", f" rpm (max {seed}) |"), encoding="utf-8")
    for i in range(N + 10 * seed, N + 10 * seed + 10):  # added
        _path(repo, i).parent.mkdir(parents=True, exist_ok=True)
        _path(repo, i).write_text(_doc(i, rng), encoding="utf-8")


def _answers(dist: Path) -> list[dict]:
    out = answers(dist, QUESTIONS)
    assert all(a["results"] for a in out)
    return out


def test_rounds_of_edits_across_hundreds_of_documents(tmp_path):
    repo = _make(tmp_path / "repo")
    dist = tmp_path / "dist"
    first = build(load_config(repo), BuildOptions(out=dist, **OPTS))
    assert first.documents == N and first.chunks > N
    assert len(list((dist / "data/chunks").iterdir())) > 150
    for seed in (1, 2, 3):
        _round(repo, seed)
        stats = build(load_config(repo), BuildOptions(out=dist, **OPTS))
        assert stats.derivation == "incremental"
        full = tmp_path / f"full-{seed}"
        build(load_config(repo), BuildOptions(out=full, use_cache=False, **OPTS))
        assert tree(dist, "data") == tree(full, "data")
        assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
        assert tree(dist, "index/bm25") == tree(full, "index/bm25")
        assert store_rows(dist) == store_rows(full)
        assert check_derived(dist) == []
        assert _answers(dist) == _answers(full)
        shutil.rmtree(full)
