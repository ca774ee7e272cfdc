"""A knowledge base whose last commit deleted every document (issue 14): its release has 0
chunks. Published into Milvus it is loaded, counted (0 = 0) and served like any other;
`kb query --engine` answers as the local index does (no answer: the index is empty, and the
same refusal of a --where key no document has), and a rollback serves the release before."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish, rollback
from tests.hostile import git, make_repo
from tests.milvus_server import milvus  # noqa: F401 - fixture

QUESTION = "mechanical seal of the irrigation pump"


def _answer(args: list[str]) -> tuple[int, dict[str, object] | str]:
    res = CliRunner().invoke(main, ["query", QUESTION, *args])
    if res.exit_code != 0:
        return res.exit_code, res.output
    out = json.loads(res.output)
    return 0, {k: v for k, v in out.items() if k != "took_ms"}


def test_a_release_of_no_documents_is_published_and_answered_alike(milvus, tmp_path,  # noqa: F811
                                                                    monkeypatch):
    repo = make_repo(tmp_path / "kb")
    build(load_config(repo), BuildOptions(out=repo / "dist1", progress=False))
    git(repo, "rm", "-q", "knowledge/good.md")
    (repo / "knowledge").mkdir(exist_ok=True)  # (git rm took the folder with its last file)
    (repo / "knowledge" / ".gitkeep").write_text("", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "every document deleted")
    build(load_config(repo), BuildOptions(out=repo / "dist2", progress=False))
    eng = connect_url(milvus.url("emptied"), create_db=True)
    first = publish(eng, check_release(repo / "dist1"))
    empty = publish(eng, check_release(repo / "dist2"))
    assert empty.moved and empty.chunks == 0 and eng.alias_target() == empty.collection
    monkeypatch.chdir(repo)
    engine = ["--engine", milvus.url("emptied")]
    local = ["--index", str(Path(repo / "dist2"))]
    for extra in (["--json"], ["--json", "--where", "lang=en"]):
        got, want = _answer([*engine, *extra]), _answer([*local, *extra])
        assert got == want
    code, out = _answer([*engine, "--json"])
    assert code == 0 and isinstance(out, dict) and out["no_answer"] and out["results"] == []
    assert rollback(eng)["to"] == first.collection
    eng.close()
