"""An agent's search → read → evaluate_table of one citation across a `kb sync` that renamed
the cited document (`kbtools.agents.moved`).

A real device serves kb-r1; an agent searches it and keeps a citation of wheat-scab.md's
decision table. kb-r2 renames the document (wheat-fhb.md, same text) and the device syncs
between the agent's calls. Passing the citation back was answered "not in the release
served now … removed or renamed" and nothing more: the agent searched again from scratch.
Now every surface names the document holding the cited section in the release read; the
release the citation came from is still read, searched and evaluated while it is kept.
"""

from __future__ import annotations

import shutil

import pytest
from device_fixtures import EDITED, make_device
from servefixtures import app_client
from test_release_helpers import git

from kbtools.agents.mcp_server import Context, tool_evaluate_table, tool_read, tool_search
from kbtools.errors import KbError

RENAMED = "knowledge/crops/wheat-fhb.md"
QUESTION = "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？"
INPUTS = {"温度": 22, "相对湿度": 90, "连续降雨天数": 4}


@pytest.fixture(scope="module")
def cited(tmp_path_factory) -> dict:
    """The device after the rename, and what the agent kept from its search of kb-r1."""
    d = make_device(tmp_path_factory.mktemp("renamed"))
    ctx = Context(index=d.dev, root=d.kr, query_log=False)
    found = tool_search(ctx, QUESTION, 3)
    top = found["results"][0]
    assert found["release"]["tag"] == "kb-r1" and top["doc"] == EDITED and top["evaluated"]
    git(d.kr, "mv", EDITED, RENAMED)
    git(d.kr, "commit", "-qm", "rename wheat-scab.md")
    assert d.publish() == "kb-r2"
    code, out = d.sync()
    assert code == 0 and f"+ {RENAMED}" in out, out
    return {"ctx": ctx, "dev": d.dev, "citation": top["citation"],
            "commit": found["release"]["source_commit"], "outputs": top["evaluation"]["outputs"]}


def refused(call) -> str:
    with pytest.raises(KbError) as info:
        call()
    assert "\n" not in info.value.message
    return info.value.message


def test_a_citation_of_a_renamed_document_names_where_its_section_is_now(cited):
    ctx, citation = cited["ctx"], cited["citation"]
    # `read` says it in Chinese, the citation's heading being Chinese (`words.read_words`);
    # `evaluate_table` in English, as `kb table eval` and /api/table/evaluate say it
    message = refused(lambda: tool_read(ctx, citation))
    assert message.startswith(f"{EDITED} 不在正在使用的发布版本（kb-r2）中"), message
    assert "之前使用的 kb-r1 中有它" in message, message
    assert message.endswith(f"{RENAMED} 有“{citation.split(' § ')[1]}”这一节：可能已改名"
                            "或移动，请在那里阅读，并按那个文档引用"), message
    message = refused(lambda: tool_evaluate_table(ctx, citation, INPUTS))
    assert message.startswith(f"{EDITED} is not in the release served now (release kb-r2")
    assert "it was in release kb-r1" in message
    assert message.endswith(f"has the section '{citation.split(' § ')[1]}' in {RENAMED}: "
                            "renamed or moved, perhaps; read it there and cite it as that "
                            "document"), message
    gen = app_client(cited["dev"])
    client = next(gen)
    try:
        got = client.get("/api/read", params={"doc": citation})
        posted = client.post("/api/table/evaluate", json={"doc": citation, "inputs": INPUTS})
    finally:
        gen.close()
    for resp in (got, posted):
        assert resp.status_code == 404, resp.text
        message = resp.json()["error"]["message"]
        assert message.startswith(f"no such document in the index: {EDITED}; release kb-r2 "
                                  "(commit "), message
        assert f"in {RENAMED}: renamed or moved, perhaps" in message, message


def test_the_release_cited_is_still_read_searched_and_evaluated_while_kept(cited):
    ctx, citation, commit = cited["ctx"], cited["citation"], cited["commit"]
    read = tool_read(ctx, citation, commit=commit)
    assert (read["release"]["tag"], read["served_release"]["tag"]) == ("kb-r1", "kb-r2")
    assert read["doc"] == EDITED and "release_gone" not in read
    table = tool_evaluate_table(ctx, citation, INPUTS, release="kb-r1")
    assert table["release"]["tag"] == "kb-r1" and table["outputs"] == cited["outputs"]
    again = tool_search(ctx, QUESTION, 3, commit=commit[:8], where=f"doc={EDITED}")
    assert again["release"]["tag"] == "kb-r1" and again["results"][0]["citation"] == citation
    now = tool_search(ctx, QUESTION, 3)
    assert now["release"]["tag"] == "kb-r2" and now["results"][0]["doc"] == RENAMED


def test_once_pruned_the_citation_still_names_where_its_section_is(cited, tmp_path):
    dev = tmp_path / "device"
    shutil.copytree(cited["dev"], dev, symlinks=True)
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    ctx = Context(index=dev, root=tmp_path, query_log=False)
    citation, commit = cited["citation"], cited["commit"]
    for message in (refused(lambda: tool_read(ctx, citation, commit=commit)),
                    refused(lambda: tool_evaluate_table(ctx, citation, INPUTS,
                                                        commit=commit))):
        assert message.startswith(f"commit {commit} is no longer on this device (it keeps "
                                  "release kb-r2"), message
        assert f"in {RENAMED}: renamed or moved, perhaps" in message, message
    message = refused(lambda: tool_search(ctx, QUESTION, commit=commit))
    assert "search without 'commit' and 'release'" in message
