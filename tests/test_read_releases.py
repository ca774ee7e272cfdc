"""A citation read in the release it came from: `kb read`, ``/api/read`` and the MCP tool
`read` share one resolver (`kbtools.agents.cited_read`) and give one answer.

A real device serving kb-r2 keeps kb-r1 beside it: kb-r2 added a line to wheat-scab.md's
section 2 (every later line moved) and removed sprayer-calibration.md. A citation kb-r1
gave out, with its release after it (``… @ <commit>``), or with `commit`/`release`, reads
kb-r1's text; once kb-r1 is pruned, what kb-r2 has at the citation's heading path, with one
line saying kb-r1 is gone; a citation of lines alone is then refused saying what to send.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from device_fixtures import EDITED, EDITED_SECTION, REMOVED, make_device, second_release
from hostile import built_repo_index
from kbfixtures import GOOD_FM
from mcpfixtures import calls, session
from servefixtures import app_client
from test_release_helpers import git

from kbtools.agents.citation_text import split_release
from kbtools.agents.local_paths import unlocated_fields, unlocated_values
from kbtools.cli import main
from kbtools.words.error_words import asks_chinese

# the temporary folder, as `kb mcp` says a path in it (`kbtools.agents.local_paths`)
TMP = [(str(Path(tempfile.gettempdir()).resolve()), "$TMPDIR"), (tempfile.gettempdir(), "$TMPDIR")]

NEW_LINE = "扬花期前三天开始巡查。"  # what kb-r2 added to EDITED_SECTION


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Path:
    d = make_device(tmp_path_factory.mktemp("reads"))
    second_release(d)
    return d.dev


def r1_commit(dev: Path) -> str:
    manifest = json.loads((dev / "releases" / "kb-r1" / "manifest.json").read_text("utf-8"))
    return str(manifest["source"]["commit"])


def cli_read(dev: Path, ask: dict) -> tuple[str, object]:
    """("ok", the JSON) or ("error", its one line) of `kb read --json --index DEV`."""
    args = ["read", "--json", "--index", str(dev), ask["doc"]]
    for name, option in (("heading_path", "--heading"), ("commit", "--commit"),
                         ("release", "--release")):
        if name in ask:
            args += [option, ask[name]]
    if "line_start" in ask:
        args += ["--lines", f"{ask['line_start']}-{ask['line_end']}"]
    res = CliRunner().invoke(main, args)
    if res.exit_code == 0:
        return "ok", json.loads(res.stdout)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), res.stderr
    return "error", lines[0].removeprefix("kb: error: ")


def http_read(client, ask: dict) -> tuple[str, object]:
    resp = client.get("/api/read", params=ask)
    if resp.status_code == 200:
        return "ok", resp.json()
    assert resp.status_code in (400, 404), resp.text
    return "error", resp.json()["error"]["message"]


def without_notice(got: dict) -> dict:
    got = dict(got)
    got.pop("notice")  # every read answer has one
    return got


def every_surface(dev: Path, tmp_path: Path, asks: list[dict]) -> list[tuple[str, object]]:
    """Each ask on the CLI, the JSON API and the MCP tool: one answer from the three."""
    cli = [cli_read(dev, ask) for ask in asks]
    client_gen = app_client(dev)
    client = next(client_gen)
    try:
        http = [http_read(client, ask) for ask in asks]
    finally:
        client_gen.close()
    mcp = session(tmp_path, "--index", str(dev),
                  scenario=lambda c: calls(c, "read", asks, without_notice))
    for ask, a, b, c in zip(asks, cli, http, mcp, strict=True):  # an MCP error: the
        said = unlocated_values(a, TMP) if a[0] == "error" else (a[0], unlocated_fields(
            a[1], TMP))  # machine's paths by name, in an error and in our words of a result
        assert said == c, (ask, a, c)  # kb read and MCP `read` alike (Chinese to a Chinese
        chinese = a[0] == "error" and asks_chinese(ask.values())  # asker); /api/read refuses
        assert a == b or chinese and b[0] == "error", (ask, a, b)  # in English, as it did
    return cli


def test_a_citation_reads_the_release_it_came_from_while_the_device_keeps_it(device,
                                                                                tmp_path):
    commit = r1_commit(device)
    ok, old = cli_read(device / "releases" / "kb-r1",
                       {"doc": EDITED, "heading_path": EDITED_SECTION[-1]})
    assert ok == "ok" and NEW_LINE not in old["markdown"]
    cited = old["citation"]
    ok, removed = cli_read(device / "releases" / "kb-r1", {"doc": REMOVED})
    lines_only = f"{removed['doc']}:{removed['line_start']}-{removed['line_end']}"
    asks = [{"doc": cited},  # the release served now
            {"doc": f"{cited} @ {commit[:12]}"},  # a citation with its release after it
            {"doc": f"{cited} [release kb-r1 @ {commit[:12]}]"},  # as `kb query` ends
            {"doc": cited, "commit": commit},
            {"doc": EDITED, "heading_path": EDITED_SECTION[-1], "release": "kb-r1"},
            {"doc": lines_only, "commit": commit[:7]},  # a document kb-r2 removed
            {"doc": f"{cited} @ {commit[:12]}", "commit": "0" * 12}]  # two commits
    got = every_surface(device, tmp_path, asks)
    assert got[0][0] == "ok" and NEW_LINE in got[0][1]["markdown"]
    assert got[0][1]["release"]["tag"] == "kb-r2" and "served_release" not in got[0][1]
    for kind, read in got[1:5]:
        assert kind == "ok" and read["markdown"] == old["markdown"], read
        assert read["citation"] == cited and read["release"]["tag"] == "kb-r1"
        assert read["served_release"]["tag"] == "kb-r2" and "release_gone" not in read
    assert got[5][0] == "ok" and got[5][1]["markdown"] == removed["markdown"]
    assert got[6][0] == "error" and "请只给出一个" in got[6][1]  # its heading path is Chinese


def test_a_citation_of_a_pruned_release_reads_the_served_ones_heading_path(device,
                                                                           tmp_path):
    commit = r1_commit(device)
    ok, old = cli_read(device / "releases" / "kb-r1",
                       {"doc": EDITED, "heading_path": EDITED_SECTION[-1]})
    ok, now = cli_read(device, {"doc": EDITED, "heading_path": EDITED_SECTION[-1]})
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    asks = [{"doc": f"{old['citation']} @ {commit[:12]}"},
            {"doc": f"{old['doc']}:{old['line_start']}-{old['line_end']}", "commit": commit},
            {"doc": f"{REMOVED} § Renamed", "release": "kb-r1"},
            {"doc": f"{EDITED}#2-监测时间窗口 @ {commit[:12]}"}]  # a link to the section
    got = every_surface(dev, tmp_path, asks)
    kind, read = got[0]
    assert kind == "ok" and read["markdown"] == now["markdown"], read
    assert read["release"]["tag"] == "kb-r2" and read["heading_path"] == now["heading_path"]
    assert read["release_gone"].startswith(f"commit {commit[:12]} is no longer on this "
                                           "device (it keeps release kb-r2")
    assert "do not cite it as the earlier release's text" in read["release_gone"]
    assert got[1][0] == "error" and "give the citation's heading path" in got[1][1]
    assert got[2][0] == "error" and "release kb-r1 is no longer on this device" in got[2][1]
    assert "no such document" in got[2][1]
    kind, linked = got[3]
    assert kind == "ok" and linked["markdown"] == now["markdown"]
    assert f"has at '{' > '.join(EDITED_SECTION)}'" in linked["release_gone"]


SLASHED = GOOD_FM.replace("Generated", "温湿度监测") + """
# 温湿度监测

## 1. 温度/湿度 判定

日均温 15～20℃、相对湿度 85% 以上时最易流行。

## 2. I/O 接口

传感器经 RS-485/Modbus 接入。

## 3. 记录

每日记录两次。

## 4. 传感器

### 注意事项

探头每月校准一次。

## 5. 记录仪

### 注意事项

断电后数据保留 72 小时。
"""
SLASHED_DOC = "knowledge/crops/温湿度.md"


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("forms"), {SLASHED_DOC: SLASHED},
                            model="test-hash")


def test_what_agents_paste_reads_the_section_it_names(dist, tmp_path):
    """A citation or link as agents and people paste it, on every surface, reads the
    section it names: `kb query`'s shown form, a code host's line anchor, the whole link
    URL-escaped, a heading with '/' in it, a citation with the served release's commit after
    it, and an earlier release's lines that now hold another section under its heading
    path (the heading path decides, as table evaluation reads such a citation)."""
    commit = json.loads((dist / "manifest.json").read_text("utf-8"))["source"]["commit"]
    first = line_of(SLASHED, "## 1.")
    io = line_of(SLASHED, "## 2.")
    asks = [({"doc": f"{SLASHED_DOC} › 温湿度监测 › 2. I/O 接口 (lines {io}–{io + 2})"}, "2. I/O 接口"),
            ({"doc": f"{SLASHED_DOC}#L{io}-L{io + 2}"}, "2. I/O 接口"),
            ({"doc": quote(f"{SLASHED_DOC}#1-温度湿度-判定", safe="")}, "1. 温度/湿度 判定"),
            ({"doc": SLASHED_DOC, "heading_path": "温度/湿度 判定"}, "1. 温度/湿度 判定"),
            ({"doc": SLASHED_DOC, "heading_path": "温湿度监测 > 2. I/O 接口"}, "2. I/O 接口"),
            ({"doc": f"{SLASHED_DOC}:{io}-{io} § 2. I/O 接口 @ {commit[:10]}"}, "2. I/O 接口"),
            ({"doc": f"{SLASHED_DOC}:{first}-{first + 1} § 温湿度监测 > 2. I/O 接口"},
             "2. I/O 接口")]
    got = every_surface(dist, tmp_path, [ask for ask, _ in asks])
    for (ask, heading), (kind, read) in zip(asks, got, strict=True):
        assert kind == "ok", (ask, read)
        assert read["heading_path"] == ["温湿度监测", heading], (ask, read["citation"])
        assert read["markdown"].startswith(f"## {heading}"), ask
        assert "release_gone" not in read and "served_release" not in read


WIDE = str.maketrans("0123456789", "０１２３４５６７８９")


def test_line_numbers_typed_full_width_read_what_they_name(dist, tmp_path):
    """A citation's line numbers as a Chinese input method types them (full-width digits,
    colon, 'L' and dashes, `kb query`'s shown form with them, the document's `．md` too), and
    line numbers sent as full-width text, read the lines they name on every surface."""
    io = line_of(SLASHED, "## 2.")
    wide, wide_end = str(io).translate(WIDE), str(io + 2).translate(WIDE)
    asks = [{"doc": f"{SLASHED_DOC}：{wide}-{wide_end}"},
            {"doc": f"{SLASHED_DOC}#Ｌ{wide}－Ｌ{wide_end}"},
            {"doc": f"{SLASHED_DOC}#L{wide}-L{wide_end}"},
            {"doc": f"{SLASHED_DOC}:{io}～{io + 2}"},
            # its suffix typed wide too: was "only Markdown documents can be read"
            {"doc": f"{SLASHED_DOC.removesuffix('.md')}．md:{io}-{io + 2}"},
            {"doc": f"{SLASHED_DOC.removesuffix('.md')}.ｍｄ：{io}－{io + 2}"},
            {"doc": f"{SLASHED_DOC.removesuffix('.md')}．ＭＤ：{wide} § 2. I/O 接口"},
            {"doc": f"{SLASHED_DOC}：{wide} § 2. I/O 接口"},
            {"doc": f"{SLASHED_DOC} › 温湿度监测 › 2. I/O 接口 (lines {wide}–{wide_end})"},
            {"doc": SLASHED_DOC, "line_start": wide, "line_end": wide_end}]
    got = every_surface(dist, tmp_path, asks)
    for ask, (kind, read) in zip(asks, got, strict=True):
        assert kind == "ok", (ask, read)
        assert read["heading_path"] == ["温湿度监测", "2. I/O 接口"], (ask, read["citation"])
        assert read["line_start"] == io and read["markdown"].startswith("## 2. I/O 接口"), ask


def test_a_heading_path_typed_with_full_width_punctuation_reads_its_section(dist, tmp_path):
    """A heading that repeats (注意事项 under 4 and 5) named with the heading above it as a
    Chinese input method types the separator ('＞', spaced or not), or with its number typed
    without a space, reads that one section on every surface; the repeated heading alone is
    refused naming both."""
    asks = [{"doc": SLASHED_DOC, "heading_path": "5. 记录仪＞注意事项"},
            {"doc": SLASHED_DOC, "heading_path": "记录仪 ＞ 注意事项"},
            {"doc": f"{SLASHED_DOC} § 温湿度监测＞5. 记录仪＞注意事项"},
            {"doc": SLASHED_DOC, "heading_path": "5.记录仪 > 注意事项"},
            {"doc": SLASHED_DOC, "heading_path": "注意事项"}]
    got = every_surface(dist, tmp_path, asks)
    for ask, (kind, read) in zip(asks[:4], got, strict=False):
        assert kind == "ok", (ask, read)
        assert read["heading_path"] == ["温湿度监测", "5. 记录仪", "注意事项"], ask
        assert "72 小时" in read["markdown"], ask
    kind, said = got[4]
    assert kind == "error" and "对应 2 个章节，无法确定读哪一个" in said  # the asker's language
    assert "4. 传感器 > 注意事项" in said and "5. 记录仪 > 注意事项" in said


def line_of(text: str, needle: str) -> int:
    """The 1-based line of `text` (with its front matter) that starts with `needle`."""
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith(needle))


@pytest.mark.parametrize("given, plain, commit, tag", [
    ("knowledge/x.md:10-20 § A > B @ 3f2a9c1d0b7e", "knowledge/x.md:10-20 § A > B",
     "3f2a9c1d0b7e", None),
    ("knowledge/x.md:10-20 § A > B@3F2A9C1", "knowledge/x.md:10-20 § A > B", "3f2a9c1", None),
    ("knowledge/x.md:10-20 (commit 3f2a9c1d0b7e)", "knowledge/x.md:10-20", "3f2a9c1d0b7e",
     None),
    ("knowledge/x.md § A (release r7, commit 3f2a9c1)", "knowledge/x.md § A", "3f2a9c1", "r7"),
    ("knowledge/x.md › A (lines 5–9) [release r7 @ 3f2a9c1d0b7e]",
     "knowledge/x.md › A (lines 5–9)", "3f2a9c1d0b7e", "r7"),
    ("knowledge/x.md:5 [local build @ 3f2a9c1 + uncommitted changes]", "knowledge/x.md:5",
     "3f2a9c1", None),
    ("knowledge/x.md#32-风险等级判定表 @ 3f2a9c1", "knowledge/x.md#32-风险等级判定表", "3f2a9c1",
     None),
    # no release: a heading's parentheses or '@', a short or non-hex word, no document
    ("knowledge/x.md § 版本 (v1.2)", "knowledge/x.md § 版本 (v1.2)", None, None),
    ("knowledge/x.md:1-2 § a@b", "knowledge/x.md:1-2 § a@b", None, None),
    ("knowledge/x.md § Ports @ 8080", "knowledge/x.md § Ports @ 8080", None, None),
    ("knowledge/x.md § Notes @ beef", "knowledge/x.md § Notes @ beef", None, None),
    ("@3f2a9c1d0b7e", "@3f2a9c1d0b7e", None, None),
])
def test_a_citations_release_is_read_off_its_end(given, plain, commit, tag):
    assert split_release(given) == (plain, commit, tag)


REPEATED_DOC = "knowledge/engineering/泵维护.md"
REPEATED = GOOD_FM + ("\n# 泵维护\n\n## 注意事项\n\n断电后再拆泵盖，等待压力释放完毕。\n\n"
                      "## 更换密封\n\n拆下旧密封，清洁密封腔，装入新密封。\n\n"
                      "## 注意事项\n\n试运行十分钟，检查是否渗漏。\n")


@pytest.fixture(scope="module")
def repeated(tmp_path_factory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("repeated"), {REPEATED_DOC: REPEATED},
                            model="test-hash")


def test_a_citation_of_a_repeated_heading_whose_lines_moved_is_refused(repeated, tmp_path):
    """A citation `…:21-23 § 泵维护 > 注意事项` of a document that grew since (its lines now in
    更换密封), whose heading path two sections share, read 更换密封's text, cited as such: the
    agent asked for a 注意事项. Neither holding its lines, it is refused in one line naming
    both by their lines, on every surface; lines one of them holds read that one."""
    first, other = line_of(REPEATED, "## 注意事项"), line_of(REPEATED, "## 更换密封")
    second = line_of(REPEATED.replace("## 注意事项", "## x", 1), "## 注意事项")
    asks = [{"doc": f"{REPEATED_DOC}:{other}-{other + 2} § 泵维护 > 注意事项"},
            {"doc": f"{REPEATED_DOC}:{second}-{second + 2} § 泵维护 > 注意事项"},
            {"doc": REPEATED_DOC, "heading_path": "泵维护 > 注意事项"}]
    got = every_surface(repeated, tmp_path, asks)
    kind, said = got[0]
    assert kind == "error" and said.startswith(f"“泵维护 > 注意事项”在文档 {REPEATED_DOC} 中对应 2 "
                                               f"个章节：泵维护 > 注意事项 ({first}-"), said
    assert f"都不包含引用的第 {other}-{other + 2} 行" in said and "按行号范围阅读" in said
    kind, read = got[1]
    assert kind == "ok" and read["line_start"] == second and "试运行" in read["markdown"]
    assert got[2][0] == "error" and "对应 2 个章节" in str(got[2][1])


def test_a_pruned_releases_citation_of_a_repeated_heading_names_both_sections(tmp_path):
    """Once the release a citation came from is pruned, its heading path is read in the one
    served. Naming two sections there, it was refused as "… has no such text: '泵维护 > 注意事项'
    matches 2 sections": it has two. Now: "…, and in release kb-r3 (…) '…' matches 2
    sections …; read one by line range (lines …)"."""
    d = make_device(tmp_path)
    (d.kr / REPEATED_DOC).parent.mkdir(parents=True, exist_ok=True)
    (d.kr / REPEATED_DOC).write_text(REPEATED, encoding="utf-8")
    git(d.kr, "add", "-A")
    git(d.kr, "commit", "-qm", "pump")
    assert d.publish() == "kb-r2" and d.sync()[0] == 0
    second = line_of(REPEATED.replace("## 注意事项", "## x", 1), "## 注意事项")
    kind, read = cli_read(d.dev, {"doc": f"{REPEATED_DOC}:{second}-{second + 2} § 泵维护 > 注意事项"})
    assert kind == "ok" and read["release"]["tag"] == "kb-r2", read
    (d.kr / REPEATED_DOC).write_text(REPEATED.replace("# 泵维护\n", "# 泵维护\n\n总则。\n"),
                                     encoding="utf-8")
    git(d.kr, "commit", "-qam", "grow")
    assert d.publish() == "kb-r3" and d.sync()[0] == 0
    shutil.rmtree(d.dev / "releases" / "kb-r2")  # as `kb sync` prunes it
    kind, said = cli_read(d.dev, {"doc": read["citation"], "release": "kb-r2"})
    assert kind == "error" and str(said).startswith("release kb-r2 is no longer on this device")
    assert "has no such text" not in str(said) and ", and in release kb-r3 (commit " in said
    assert "'泵维护 > 注意事项' matches 2 sections" in str(said) and "read one by line range" in said


def as_an_older_kb_kept(dev: Path) -> None:
    """Each release of `dev` as a kb before release.json was kept beside the manifest left
    it: no release.json, and verified.json without what was later recorded of it."""
    for rdir in (dev / "releases").iterdir():
        (rdir / "release.json").unlink()
        verified = json.loads((rdir / "verified.json").read_text(encoding="utf-8"))
        for key in ("release_files", "tag", "serial", "manifest_sha256", "created",
                    "source_commit"):
            verified.pop(key, None)
        (rdir / "verified.json").write_text(json.dumps(verified), encoding="utf-8")


def test_a_pruned_release_without_release_json_names_the_served_one_once(device, tmp_path):
    """The served release of a device whose releases have no release.json (older ones)
    was named "the build of commit …" and then again by its tag among those kept: "it
    keeps the build of commit 1a2b…, served now, and kb-r2". A device's release is named
    by the tag its directory was installed as, once, with its commit; `kb status` names
    its source commit, and no creation time "None"."""
    commit = r1_commit(device)
    served = json.loads((device / "releases" / "kb-r2" / "manifest.json").read_text("utf-8"))
    now = f"release kb-r2 (commit {served['source']['commit'][:12]})"
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    as_an_older_kb_kept(dev)
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    asks = [{"doc": EDITED, "heading_path": EDITED_SECTION[-1], "release": "kb-r1"},
            {"doc": EDITED, "heading_path": EDITED_SECTION[-1], "commit": commit}]
    for kind, read in every_surface(dev, tmp_path, asks):
        assert kind == "ok" and read["release"]["tag"] == "kb-r2", read
        gone = read["release_gone"]
        assert f"(it keeps {now}, served now)" in gone and gone.count("kb-r2") == 2, gone
        assert f"this is what {now} has at" in gone and "the build of" not in gone
    res = CliRunner().invoke(main, ["query", "--json", "--index", str(dev), "赤霉病"])
    assert json.loads(res.stdout)["release"]["tag"] == "kb-r2", res.output
    res = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert f"serving kb-r2 (source {served['source']['commit'][:12]}, created unknown" \
        in res.stdout, res.output


def test_a_release_asked_for_as_an_operator_spells_it(device, tmp_path):
    """`kb rollback` reads KB-R1 and a full-width ｋｂ－ｒ１ as kb-r1 and asks "did you mean
    kb-r1?" of r1; a read asking for them said "release KB-R1 is not on this device (it
    keeps … kb-r1)" and gave the served release's text instead. Now KB-R1 reads kb-r1, and
    a name that is no release tag is refused naming the argument and the tag it may mean."""
    commit = r1_commit(device)
    asks = [{"doc": EDITED, "heading_path": EDITED_SECTION[-1], "release": release}
            for release in ("KB-R1", "ｋｂ－ｒ１ ", "\u200bkb-r1\ufeff", "r1", "kb-r01", "第1版",
                            "../kb-r1", "refs/tags/kb-r1")]
    got = every_surface(device, tmp_path, asks)
    for kind, read in got[:3]:  # a zero-width space pasted with it too
        assert kind == "ok" and read["release"]["tag"] == "kb-r1", read
        assert NEW_LINE not in read["markdown"] and "release_gone" not in read
    # a path or a ref ending in a tag kept here was "no longer on this device" (a read
    # gave the served release's text): it is no tag either
    for (kind, said), name in zip(got[3:], ("r1", "kb-r01", "第1版", "../kb-r1",
                                            "refs/tags/kb-r1"), strict=True):
        assert kind == "error" and str(said).startswith(f"'release': {name} is not a release "
                                                        "tag (kb-r<serial>"), said
        assert "kb-r1" in str(said) and str(said).endswith("(local: kb-r1, kb-r2)"), said
    res = CliRunner().invoke(main, ["query", "--json", "--index", str(device), "赤霉病",
                                    "--release", "KB-R1"])
    assert json.loads(res.stdout)["release"]["source_commit"] == commit, res.output
    wide = commit[:12].translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})  # ａｅｄ７…
    res = CliRunner().invoke(main, ["query", "--json", "--index", str(device), "赤霉病",
                                    "--commit", f"{wide}\u200b"])
    assert json.loads(res.stdout)["release"]["source_commit"] == commit, res.output
    res = CliRunner().invoke(main, ["query", "--index", str(device), "赤霉病", "--release", "r1"])
    assert res.exit_code == 2 and "did you mean kb-r1?" in res.stderr, res.output  # usage


def test_a_document_a_release_removed_names_the_kept_release_holding_it(device, tmp_path):
    """kb-r2 removed REMOVED; kb-r1, kept beside it, has it. A citation of it read again
    with no release was "no such document in the index" alone (an agent retried
    spellings); it now names kb-r1 and how to read it there, on every surface, and once
    kb-r1 is pruned says what it said before."""
    commit = r1_commit(device)
    got = every_surface(device, tmp_path, [{"doc": f"{REMOVED}:1-5 § Sprayer"}])
    kind, said = got[0]
    assert kind == "error" and str(said).startswith(f"no such document in the index: {REMOVED}"
                                                    f"; release kb-r1 (commit {commit[:12]}), "
                                                    "kept on this device, has it: read it "
                                                    "there with release kb-r1"), said
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    kind, said = cli_read(dev, {"doc": REMOVED})
    assert kind == "error" and said == f"no such document in the index: {REMOVED}", said


def test_a_server_that_served_the_kept_release_names_it_once(device, tmp_path):
    """An MCP server that served kb-r1 before the switch to kb-r2 said of REMOVED "it was
    in release kb-r1 …, which this server served before"; with kb-r1 kept on the device, it
    says where to read it, naming kb-r1 once."""
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    os.replace(dev / "current", dev / "was")
    os.symlink("releases/kb-r1", dev / "current")

    async def scenario(c):
        first = await c.call_tool("read", {"doc": REMOVED})
        os.replace(dev / "was", dev / "current")  # as `kb sync` switches
        return first, await c.call_tool("read", {"doc": REMOVED})

    first, then = session(tmp_path, "--index", str(dev), scenario=scenario)
    assert not first.is_error and then.is_error
    said = then.content[0].text
    assert "kept on this device, has it: read it there with release kb-r1" in said, said
    assert said.count("kb-r1") == 2 and "served before" not in said, said


def test_a_citation_by_commit_alone_across_a_dirty_build_says_its_lines_may_differ(dist,
                                                                                   tmp_path):
    """A build of uncommitted files names its commit alone in a citation (`… @ <commit>`):
    read back by that commit in such a build, or in a clean release of the commit when the
    citation says it came from one (`+ uncommitted changes`), its lines may be another
    text's, and nothing said so. `release_note` says it on every surface (`kb read` on
    stderr); a clean citation read in a clean release has none."""
    manifest = json.loads((dist / "manifest.json").read_text("utf-8"))
    commit = manifest["source"]["commit"][:12]
    io = line_of(SLASHED, "## 2.")
    cited = f"{SLASHED_DOC}:{io}-{io + 2}"
    asks = [{"doc": f"{cited} [local build @ {commit} + uncommitted changes]"},
            {"doc": f"{cited} @ {commit}"}]
    (tmp_path / "clean").mkdir()
    (tmp_path / "built").mkdir()
    clean = every_surface(dist, tmp_path / "clean", asks)
    dirty = tmp_path / "dirty"
    shutil.copytree(dist, dirty)
    manifest["source"]["dirty"] = True  # as `kb build` of a work tree with edits writes it
    (dirty / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    built = every_surface(dirty, tmp_path / "built", asks[1:])
    said = [answer.get("release_note") for _, answer in clean + built]  # type: ignore[union-attr]
    assert said[1] is None, said
    assert "came from a build of commit" in said[0] and "may differ" in said[0], said
    assert "with uncommitted changes: a citation of commit" in said[2], said
    res = CliRunner().invoke(main, ["read", "--index", str(dirty), asks[1]["doc"]])
    assert res.exit_code == 0 and "kb: note: read in the build of commit" in res.stderr
