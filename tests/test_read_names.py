"""A document named otherwise than its file: MCP `read` and ``/api/read`` read the one
document a name means but for case, Unicode composition or a ``.MD`` suffix (as the
``/doc/`` page opens it, `serve.nearest`), and name the documents when several are so
named, never reading one of them as if it were asked for exactly."""

from __future__ import annotations

import unicodedata

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from mcpfixtures import built, calls, committed_repo, git, session
from servefixtures import app_client, error_of

from kbtools.agents.citation_text import narrow_suffix, narrow_width
from kbtools.agents.named import read_value
from kbtools.cli import main

__all__ = ["built"]  # the module-scoped fixture, imported for pytest to find

RISK = "knowledge/crops/risk.md"
SECTION = "2. 风险等级表"


def cited(got: dict) -> tuple[str, str]:
    return got["doc"], got["citation"]


def test_read_finds_a_document_named_in_another_case_in_mcp_and_http(built, tmp_path):
    asks = [{"doc": name, "heading_path": SECTION}
            for name in ("knowledge/crops/RISK.MD", "Knowledge/Crops/Risk.md",
                         "crops/risk.MD", "knowledge%2Fcrops%2FRisk.md")]
    exact = {"doc": RISK, "heading_path": SECTION}
    mcp = session(tmp_path, "--index", str(built / "dist"), "--no-log",
                  scenario=lambda c: calls(c, "read", [exact, *asks], cited))
    assert mcp[0][0] == "ok" and mcp[0][1][0] == RISK, mcp[0]
    assert all(got == mcp[0] for got in mcp[1:]), mcp  # cited as the file is named
    gen = app_client(built / "dist")
    client = next(gen)
    try:
        for ask in asks:
            resp = client.get("/api/read", params=ask)
            assert resp.status_code == 200, resp.text
            assert cited(resp.json()) == mcp[0][1]
        missing = client.get("/api/read", params={"doc": "knowledge/crops/risks.md"})
        assert "no such document in the index" in error_of(missing, 404)
    finally:
        gen.close()


def test_read_names_the_documents_when_several_are_named_so(tmp_path):
    """A repository (Linux keeps both) holding `Réglage.md` and `réglage.md`: a name in
    a third spelling names both; a name one of them alone has, decomposed and upper-cased,
    reads it."""
    repo = committed_repo(tmp_path / "repo")
    body = "---\ntitle: Réglage\ncategory: notes\n---\n\n# Réglage\n\nDébit 2 L/min.\n"
    (repo / "knowledge" / "notes" / "Réglage.md").write_text(body, encoding="utf-8")
    (repo / "knowledge" / "notes" / "réglage.md").write_text(body, encoding="utf-8")
    (repo / "knowledge" / "notes" / "Débit.md").write_text(
        body.replace("Réglage", "Débit"), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "accented names")
    asks = [{"doc": "knowledge/notes/RÉGLAGE.md"},
            {"doc": unicodedata.normalize("NFD", "notes/DÉBIT.MD")}]
    got = session(repo, "--no-log", scenario=lambda c: calls(c, "read", asks, cited))
    kind, message = got[0]
    assert kind == "error" and message == (
        "'knowledge/notes/RÉGLAGE.md' names no document exactly, and 2 documents but for "
        "case or Unicode composition: knowledge/notes/Réglage.md, knowledge/notes/réglage.md; "
        "give the one meant as it is written"), message
    assert got[1] == ("ok", ("knowledge/notes/Débit.md",
                             got[1][1][1])) and got[1][1][1].startswith("knowledge/notes/Débit.md")


def test_read_finds_a_document_by_its_file_name_alone_and_names_several(built, tmp_path,
                                                                      monkeypatch):
    """`risk.md` (a citation's path shortened to its file name, in a chat or a note): "no
    such document" from MCP `read`, `/api/read` and `kb read`, one reader for all three.
    The one document of that file name is read, cited by its own path; in a repository
    with `pump.md` in two folders, both are named and neither is read."""
    asks = [{"doc": name, "heading_path": SECTION} for name in ("risk.md", "crops/Risk.md")]
    exact = {"doc": RISK, "heading_path": SECTION}
    # a whole path under the knowledge folder may be a removed document's: never read as
    # another of its file name, with no device as on the page (`docpath.whole_path`)
    gone = {"doc": "knowledge/Risk.md", "heading_path": SECTION}
    mcp = session(tmp_path, "--index", str(built / "dist"), "--no-log",
                  scenario=lambda c: calls(c, "read", [exact, *asks, gone], cited))
    assert mcp[0][0] == "ok" and all(got == mcp[0] for got in mcp[1:-1]), mcp
    said_zh = ("本发布版本中没有这个文档：knowledge/Risk.md；本发布版本的其他文件夹中有这个文件名的"
               f"文档：{RISK}。若所指的是其中一个，请按那个路径阅读和引用")
    assert mcp[-1] == ("error", said_zh), mcp  # its heading path is Chinese: so is the asker
    gen = app_client(built / "dist")
    client = next(gen)
    try:  # /api/read refuses it alike, in Chinese for a Chinese caller
        assert error_of(client.get("/api/read", params=gone), 404) == (
            "no such document in the index: knowledge/Risk.md; the index has a document of "
            f"that file name in another folder: {RISK}; if one is meant, read and cite it by "
            "that path")
        zh = client.get("/api/read", params=gone, headers={"accept-language": "zh-CN"})
        assert error_of(zh, 404) == said_zh, zh.text
    finally:
        gen.close()
    repo = committed_repo(tmp_path / "repo")
    body = "---\ntitle: Pump\ncategory: notes\n---\n\n# Pump\n\nSeal every 500 h.\n"
    for folder in ("notes", "equipment"):
        (repo / "knowledge" / folder).mkdir(exist_ok=True)
        (repo / "knowledge" / folder / "pump.md").write_text(body, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one file name in two folders")
    asks = [{"doc": "pump.md"}, {"doc": "knowledge/pump.md"}]
    got = session(repo, "--no-log", scenario=lambda c: calls(c, "read", asks, cited))
    assert got[0] == ("error", "'pump.md' names no document exactly, and 2 documents have "
                      "that file name: knowledge/equipment/pump.md, knowledge/notes/pump.md; "
                      "give the one meant with its folders"), got
    # a whole path naming none, two documents of its file name elsewhere: refused as with
    # one (it may be a removed document's path, `no_document`), both named; it was told
    # "give the one meant with its folders", a usage error the follow-ups never read
    gone = ("no such document in the repository: knowledge/pump.md; the repository has 2 "
            "documents of that file name in another folder: knowledge/equipment/pump.md, "
            "knowledge/notes/pump.md; if one is meant, read and cite it by that path")
    assert got[1] == ("error", gone), got
    monkeypatch.chdir(repo)  # `kb read` in the repository: one reader for all three
    res = CliRunner().invoke(main, ["read", "knowledge/pump.md"])
    assert res.exit_code == 1 and res.stderr.strip() == f"kb: error: {gone}", res.output


def test_a_page_named_otherwise_is_still_redirected_to_the_documents_own_address(built):
    gen = app_client(built / "dist")
    client = next(gen)
    try:
        resp = client.get("/doc/knowledge/crops/RISK.MD", follow_redirects=False)
        assert resp.status_code == 307 and resp.headers["location"].endswith(RISK)
    finally:
        gen.close()




def test_a_path_or_citation_padded_with_invisible_characters_reads_its_document(built,
                                                                                tmp_path):
    """A path or citation copied from a chat or a PDF carries a zero-width space, a BOM or
    a bidi mark at an end: `risk.md\\u200b` was refused as "only Markdown documents can be
    read", `risk.md:1-3\\u2060` as a citation given whole. They read what the bare one reads,
    over MCP and /api/read; a document is still named by what lies between them."""
    bare = [{"doc": RISK, "heading_path": SECTION}, {"doc": f"{RISK}:1-3"},
            {"doc": f"{RISK} § {SECTION}"}]
    pads = [("\u200b", ""), ("\ufeff", "\u200e"), (" \u2060", "\u200b "), ("", "\u202c")]
    padded = [{**ask, "doc": f"{lead}{ask['doc']}{tail}"} for lead, tail in pads
              for ask in bare]
    mcp = session(tmp_path, "--index", str(built / "dist"), "--no-log",
                  scenario=lambda c: calls(c, "read", [*bare, *padded], cited))
    assert all(kind == "ok" for kind, _ in mcp), mcp
    assert mcp[len(bare):] == mcp[:len(bare)] * len(pads), mcp
    gen = app_client(built / "dist")
    client = next(gen)
    try:
        for ask, want in zip(padded, mcp[len(bare):], strict=True):
            resp = client.get("/api/read", params=ask)
            assert resp.status_code == 200, resp.text
            assert cited(resp.json()) == want[1]
    finally:
        gen.close()


PADDING = st.lists(st.sampled_from(["\u200b", "\ufeff", "\u200e", "\u2060", "\u202c", " ",
                                    "\t", "\u3000"]), max_size=4).map("".join)


@given(PADDING, st.sampled_from([RISK, f"{RISK}:1-3", f"{RISK} § {SECTION}", "crops/risk.md",
                                 "knowledge/a b/c.markdown"]), PADDING)
def test_padding_never_changes_what_a_path_names(lead, doc, tail):
    from kbtools.agents.docpath import check_doc_path, cited, linked

    padded = f"{lead}{doc}{tail}"
    assert cited(padded) == cited(doc) and linked(padded) == linked(doc)
    if cited(doc) is None:
        assert check_doc_path(padded) == check_doc_path(doc)


def test_a_path_typed_full_width_reads_its_document_and_is_judged_as_meant(built, tmp_path):
    """A path typed with a Chinese input method's full-width forms (`／`, `．ｍｄ`, `ＲＩＳＫ`)
    was "no such document", or "only Markdown documents can be read" for `．md`, in MCP
    `read`, `evaluate_table` and ``/api/read``; it reads the document it means now. Its
    `．．／` and leading `／` are refused as the ASCII ones are: never a file outside."""
    names = ["knowledge／crops／risk．md", "ｋｎｏｗｌｅｄｇｅ/crops/ＲＩＳＫ．ＭＤ", "crops／risk.md",
             "risk．md"]
    refused = {"．．／．．／etc/passwd.md": "文档路径中不允许出现“..”",  # its heading path is
               "／etc/passwd.md": "不能使用绝对路径"}  # Chinese: so is the asker
    table = {"doc": names[0], "inputs": {"温度": 18, "相对湿度": 90}}

    async def scenario(c):
        reads = await calls(c, "read", [{"doc": name, "heading_path": SECTION}
                                        for name in [RISK, *names, *refused]], cited)
        return reads, await calls(c, "evaluate_table", [table], lambda got: got["doc"])

    reads, evaluated = session(tmp_path, "--index", str(built / "dist"), "--no-log",
                               scenario=scenario)
    assert reads[0][0] == "ok" and reads[0][1][0] == RISK, reads[0]
    assert reads[1:len(names) + 1] == [reads[0]] * len(names), reads
    for (status, said), why in zip(reads[len(names) + 1:], refused.values(), strict=True):
        assert status == "error" and why in said, said
    assert evaluated == [("ok", RISK)]
    gen = app_client(built / "dist")
    client = next(gen)
    try:
        resp = client.get("/api/read", params={"doc": names[1], "heading_path": SECTION})
        assert resp.status_code == 200 and cited(resp.json()) == reads[0][1], resp.text
    finally:
        gen.close()


def test_a_full_width_hash_after_the_suffix_reads_as_the_hash(built, tmp_path):
    """A link or code host's lines typed with a Chinese input method's ``＃`` (``x.md＃2-…``,
    ``x．md＃Ｌ１－Ｌ３``) was read as part of the path, "no such document", by MCP `read`
    and ``/api/read`` (`kb read` too) while its ``．md`` and ``Ｌ１`` were read as ASCII; the
    ``＃`` right after the suffix is the ``#`` now, and the rest of an anchor keeps its own."""
    half = [f"{RISK}#2-风险等级表", f"{RISK}#{SECTION}", f"{RISK}#L1-L3"]
    wide = [f"{RISK}＃2-风险等级表", f"{RISK[:-3]}．md＃{SECTION}",
            f"{RISK[:-3]}．ｍｄ＃Ｌ１－Ｌ３"]
    asks = [{"doc": doc} for doc in half + wide]
    mcp = session(tmp_path, "--index", str(built / "dist"), "--no-log",
                  scenario=lambda c: calls(c, "read", asks, cited))
    assert all(kind == "ok" for kind, _ in mcp), mcp
    assert mcp[len(half):] == mcp[:len(half)] and mcp[0] != mcp[2], mcp
    gen = app_client(built / "dist")
    client = next(gen)
    try:
        for ask, want in zip(asks, mcp, strict=True):
            resp = client.get("/api/read", params=ask)
            assert resp.status_code == 200 and cited(resp.json()) == want[1], resp.text
    finally:
        gen.close()


def test_only_the_full_width_forms_of_ascii_are_read_narrow():
    """One narrowing for a citation's suffix, a draft's cited lines and a table's value
    (`narrow_width`): each full-width form of ASCII and the ideographic space as its ASCII,
    one character for one; a superscript (a footnote's mark, an exponent), a ligature, ``℃``
    or a mathematical letter keeps its own, where NFKC read ``x.𝐦𝐝`` as ``x.md``."""
    wide = "".join(map(chr, range(0xFF01, 0xFF5F))) + "\u3000"
    assert narrow_width(wide) == "".join(map(chr, range(0x21, 0x7F))) + " "
    kept = "x.𝐦𝐝:1² ﬁ 25℃ ① ﹒"
    assert narrow_width(kept) == kept
    assert narrow_suffix("ｘ．ｍｄ＃Ｌ１") == "ｘ.md#Ｌ１" and narrow_suffix("x.𝐦𝐝:1-2") == "x.𝐦𝐝:1-2"
    assert read_value("\u3000１０⁵ ") == "10⁵" and read_value("ｐＨ＞７") == "pH>7"
