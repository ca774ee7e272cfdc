"""The MCP `read` tool (`agents.read.read_section`) says who last changed the lines it
returns and who reviewed the document, as a search result does (`last_commit`,
`last_author`, `last_changed`, `verification.review`): it used to say only whether they
were verified. Read from a repository without an index here (blame and review history);
from a built index in tests/test_verified.py. Real repositories (tests/reviewkb.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from reviewkb import ALICE, DOC, KB, MALLORY, RITA, doc_text

from kbtools.agents.read import open_knowledge, read_section

BODY = "# 锈病\n\n## 识别\n\n叶片出现橙色孢子堆。\n\n## 防治\n\n发现病斑即喷药。\n"
REVIEWED = dict(verified=True, by="rita@ex.org", at="2026-02-02T10:00:00+08:00")


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    kb = KB(tmp_path / "kb")
    kb.put(doc_text(BODY), "添加锈病", ALICE, "2026-02-01T10:00:00+08:00")
    kb.review = kb.put(doc_text(BODY, **REVIEWED), "审核", RITA, "2026-02-02T10:00:00+08:00")
    kb.edit = kb.put(doc_text(BODY.replace("即喷药", "后三天内喷药"), **REVIEWED), "改防治",
                     MALLORY, "2026-02-03T10:00:00+08:00")
    return kb


def test_read_says_who_changed_the_lines_and_who_reviewed(kb: KB) -> None:
    kn = open_knowledge(kb.root)
    changed = read_section(kn, DOC, "防治").to_dict()
    assert changed["verified"] is False
    assert changed["verification"]["review"] == {
        "commit": kb.review, "by": "rita@ex.org", "at": REVIEWED["at"]}
    assert (changed["last_commit"], changed["last_author"]) == (kb.edit, MALLORY.name)
    assert changed["last_changed"] == "2026-02-03T10:00:00+08:00"
    kept = read_section(kn, DOC, "识别").to_dict()
    assert kept["verified"] is True and kept["verification"]["review"]["commit"] == kb.review
    assert kept["last_author"] == ALICE.name and kept["last_commit"] != kb.edit


def test_an_unverified_document_names_no_review(kb: KB) -> None:
    kb.put(doc_text(BODY), "撤销审核", MALLORY, "2026-02-04T10:00:00+08:00")
    read = read_section(open_knowledge(kb.root), DOC, "识别").to_dict()
    assert read["verified"] is False and read["verification"]["review"] is None
    assert read["last_author"] == ALICE.name
    (kb.root / DOC).write_text(doc_text(BODY.replace("橙色", "黄色")), encoding="utf-8")
    read = read_section(open_knowledge(kb.root), DOC, "识别").to_dict()
    assert read["last_commit"] == "uncommitted" and read["last_changed"] is None
