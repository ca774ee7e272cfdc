"""The library surface: `import kbtools` and the five entry points, end to end on real data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import kbtools
from kbtools.cli import main
from tests.kbfixtures import copy_example

REPO = Path(__file__).resolve().parents[1]
CROPS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "knowledge" / "crops").glob("*.md"))
DOCS = ["knowledge/equipment/hx260-ch05-fault-codes.md", "knowledge/crops/wheat-scab.md",
        *(d for d in CROPS if d != "knowledge/crops/wheat-scab.md")]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return copy_example(tmp_path_factory.mktemp("api"), DOCS)


def test_import_kbtools_loads_no_stage_package():
    code = ("import sys, kbtools; "
            "print(sorted(m for m in sys.modules if m.startswith('kbtools.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def built(repo):
    return kbtools.build_index(repo)


def test_check_build_open_search(repo, built):
    assert [f for f in kbtools.check_files([repo / "knowledge"], repo=repo) if f.level == "error"] == []
    assert built.documents == len(DOCS) and built.chunks > 10
    index = kbtools.open_index(repo / "dist")
    try:
        response = kbtools.search(index, "E17 报警后怎么复位？", k=3)
        assert not response.no_answer and 0 < len(response.results) <= 3
        assert all(r.citation.doc == DOCS[0] for r in response.results[:1])
        assert "hx260-ch05-fault-codes.md" in response.results[0].citation.display()
        assert response.to_dict()["results"][0]["doc"] == DOCS[0]
        filtered = kbtools.search(index, "赤霉病风险", where=["crop=小麦"])
        assert filtered.results
        assert {r.citation.doc for r in filtered.results} <= set(DOCS[1:])
    finally:
        index.close()


def test_evaluate_table(repo):
    result = kbtools.evaluate_table(repo / DOCS[1], {"温度": "22", "相对湿度": "90",
                                                     "连续降雨天数": "4"})
    assert result.status == "match"
    assert result.outputs[0]["风险等级"] == "极高"


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        kbtools.nope  # noqa: B018


def test_the_readme_library_example_runs(repo, built, monkeypatch, capsys):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = readme.split("## As a library", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(repo)
    exec(compile(example, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed and "knowledge/equipment/hx260-ch05-fault-codes.md" in printed[0]


def test_check_files_warns_of_a_lapsed_review_as_kb_check_does(tmp_path):
    """README: `kbtools.check_files(paths)` does what `kb check` does; it left out the
    `verification-lapsed` warning `kb check` gives for a verified document edited after its
    review (the build then serves it as unverified)."""
    repo = copy_example(tmp_path / "repo", DOCS[:2])
    doc = repo / DOCS[1]
    doc.write_text(doc.read_text(encoding="utf-8") + "\n补充：雨后复查一次。\n", encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=Ed", "-c", "user.email=ed@example.org"]
    subprocess.run([*git, "commit", "-qam", "edit"], check=True)
    found = kbtools.check_files([repo / "knowledge"], repo=repo)
    assert (DOCS[1], "verification-lapsed") in [(f.path, f.code) for f in found]
    res = CliRunner().invoke(main, ["check", str(repo / "knowledge"), "--json"])
    assert [(f.path, f.line, f.code) for f in found] == [
        (f["path"], f["line"], f["code"]) for f in json.loads(res.stdout)]
