"""Obsidian's `[[wikilinks]]` and `![[embeds]]` (`kbtools.check.wikilinks`): `kb check`
reports each one written in a document's text at its line and column, never one in code,
math, an HTML comment or a standard link's text; `kb check --fix` rewrites the ones naming
exactly one file into standard relative links, and the fixed document builds with its
picture shipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.links import written_path
from kbtools.check.wikilinks import image_alt, image_size, parse_wikilink, with_target
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1
PNG = b"\x89PNG\r\n\x1a\n"
PASTED = "Pasted image 20240615141822.png"
SETTINGS = '"Use [[Wikilinks]]" off, "New link format": "Relative path to file"'


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    for folder in ("knowledge/crops", "knowledge/设备", "assets/images"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "assets" / "images" / PASTED).write_bytes(PNG)
    (tmp_path / "assets" / "images" / "玉米 锈病.png").write_bytes(PNG)
    (tmp_path / "knowledge" / "设备" / "液压 系统.md").write_text(
        GOOD_FM + "# 液压系统\n\n## 4.3 液压系统: 压力异常\n\n检查溢流阀。\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


def write(repo: Path, rel: str, body: str) -> Path:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD_FM + body, encoding="utf-8")
    return path


def wikilink_findings(result) -> list[tuple[int, int, str]]:
    """(line, col, wikilink as written) of each link-wikilink finding printed."""
    out = []
    for line in result.stdout.splitlines():
        where, _, rest = line.partition(": error: link-wikilink: ")
        if rest:
            _, row, col = where.rsplit(":", 2)
            out.append((int(row), int(col), rest.split("'")[1]))
    return out


PLACES = ("# 玉米 [[液压 系统]]\n\n"
          f"田间照片 ![[{PASTED}]] 和 ![[玉米 锈病.png|300]]。\n"
          "> 引用 [[液压 系统#4.3 液压系统: 压力异常|压力]]\n\n"
          "- 列表 [[液压 系统]]\n\n"
          "| 项 | 见 |\n|---|---|\n| 压力 | [[液压 系统\\|表格里]] |\n")
IGNORED = ("# 不算\n\n代码 `[[液压 系统]]` 和公式 $[[a]]$ 和 \\[[液压 系统]] 以及 "
           "<!-- [[液压 系统]] --> 还有 [见 [[液压 系统]]](../设备/液压%20系统.md)\n\n"
           "```\n![[" + PASTED + "]]\n```\n\n    [[液压 系统]]\n\n$$\n[[x]]\n$$\n\n"
           "<!--\n[[液压 系统]]\n-->\n\n~~~md\n[[液压 系统]]\n~~~\n")


def test_each_wikilink_and_embed_is_an_error_at_its_line_and_column(repo):
    write(repo, "knowledge/crops/corn.md", PLACES)
    result = check()
    assert result.exit_code == 1
    base = FM_LINES + 1
    assert wikilink_findings(result) == [
        (base, 6, "[[液压 系统]]"),
        (base + 2, 6, f"![[{PASTED}]]"),
        (base + 2, 45, "![[玉米 锈病.png|300]]"),
        (base + 3, 6, "[[液压 系统#4.3 液压系统: 压力异常|压力]]"),
        (base + 5, 6, "[[液压 系统]]"),
        (base + 9, 8, "[[液压 系统\\|表格里]]")]  # as written: one backslash
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"knowledge/crops/corn.md:{base}:6: error: link-wikilink: Obsidian "
                            "wikilink '[[液压 系统]]' is plain text to kbtools (the link is not "
                            "followed or checked); `kb check --fix` writes "
                            "'[液压 系统](../设备/液压%20系统.md)'")
    assert SETTINGS in first
    embed = result.stdout.splitlines()[1]
    assert "(other Markdown readers show it as text)" in embed
    assert "'![Pasted image 20240615141822](../../assets/images/Pasted%20image%2020240615141822.png)'" in embed


def test_a_wikilink_holding_emphasis_or_a_highlight_is_one_wikilink(repo):
    # Obsidian reads `[[…]]` before emphasis; markdown-it read `[[a*b*c]]` as text around an
    # emphasis, so a wikilink whose name or label holds `*`, `**`, `_` or `==` went unreported
    write(repo, "knowledge/crops/marks.md",
          "# 标记\n\n见 [[液压 系统|**压力** 异常]] 和 [[a*b*c]]。\n\n"
          "*强调 [[液压 系统]]* 与 [[液压 系统#4.3 液压系统: 压力异常|==压力== _x_]]，另 **粗体** [[b]]\n")
    result = check()
    base = FM_LINES + 3
    assert wikilink_findings(result) == [
        (base, 3, "[[液压 系统|**压力** 异常]]"), (base, 25, "[[a*b*c]]"),
        (base + 2, 5, "[[液压 系统]]"), (base + 2, 18, "[[液压 系统#4.3 液压系统: 压力异常|==压力== _x_]]"),
        (base + 2, 63, "[[b]]")], result.stdout
    page = repo / "knowledge" / "crops" / "marks.md"
    assert check("--fix").exit_code == 1
    body = page.read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body.splitlines()[2:] == [
        "见 [**压力** 异常](../设备/液压%20系统.md) 和 [[a*b*c]]。", "",
        "*强调 [液压 系统](../设备/液压%20系统.md)* 与 [==压力== _x_](../设备/液压%20系统.md"
        "#43-液压系统-压力异常)，另 **粗体** [[b]]"]


def test_code_math_comments_escapes_and_link_text_are_not_wikilinks(repo):
    write(repo, "knowledge/crops/code.md", IGNORED)
    result = check()
    assert wikilink_findings(result) == [], result.stdout
    assert result.exit_code == 0, result.stdout


def test_fix_writes_standard_links_and_is_idempotent(repo):
    page = write(repo, "knowledge/crops/corn.md", PLACES + "\n同页 [[#玉米 液压 系统]] 和 "
                 "[[../设备/液压 系统|相对]] 和 [[knowledge/设备/液压 系统.md]] 和 [[液压 系统.MD]]\n")
    result = check("--fix")
    assert result.exit_code == 0, result.output
    body = page.read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == (
        "# 玉米 [液压 系统](../设备/液压%20系统.md)\n\n"
        "田间照片 ![Pasted image 20240615141822](../../assets/images/Pasted%20image%2020240615141822.png)"
        ' 和 <img src="../../assets/images/玉米%20锈病.png" alt="玉米 锈病" width="300">。\n'
        "> 引用 [压力](../设备/液压%20系统.md#43-液压系统-压力异常)\n\n"
        "- 列表 [液压 系统](../设备/液压%20系统.md)\n\n"
        "| 项 | 见 |\n|---|---|\n| 压力 | [表格里](../设备/液压%20系统.md) |\n"
        "\n同页 [玉米 液压 系统](#玉米-液压-系统) 和 [相对](../设备/液压%20系统.md) 和 "
        "[knowledge/设备/液压 系统.md](../设备/液压%20系统.md) 和 "
        "[液压 系统.MD](../设备/液压%20系统.md)\n")
    changes = [line for line in result.stderr.splitlines() if ": fixed: " in line]
    assert changes[0] == (f"knowledge/crops/corn.md:{FM_LINES + 1}:6: fixed: [[液压 系统]] -> "
                          "[液压 系统](../设备/液压%20系统.md)")
    assert len(changes) == 10
    again = check("--fix")
    assert again.exit_code == 0 and "fixed:" not in again.stderr
    assert page.read_text(encoding="utf-8").split("---\n", 2)[2] == body


def test_an_embed_keeps_its_alt_text_and_its_size(repo):
    page = write(repo, "knowledge/crops/alt.md",
                 "# 图\n\n![[玉米 锈病.png|叶片上的锈色孢子堆|300x200]]\n"
                 "![[images/玉米 锈病.png|左 | 右]]\n\n"
                 "| 图 | 说明 |\n|---|---|\n| ![[玉米 锈病.png\\|A & \"B\"\\|120]] | 小图 |\n")
    assert check("--fix").exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert ('<img src="../../assets/images/玉米%20锈病.png" alt="叶片上的锈色孢子堆" '
            'width="300" height="200">') in text
    assert "![左 \\| 右](../../assets/images/玉米%20锈病.png)" in text
    assert ('| <img src="../../assets/images/玉米%20锈病.png" alt="A &amp; &quot;B&quot;" '
            'width="120"> | 小图 |') in text
    again = check("--fix")
    assert again.exit_code == 0 and "fixed:" not in again.stderr


def test_a_wikilink_in_a_table_is_quoted_as_written(repo):
    write(repo, "knowledge/crops/cell.md",
          "# 表\n\n| 项 | 见 |\n|---|---|\n| 压力 | [[没有\\|表格里]] [[液压 系统\\|表]] |\n")
    lines = check().stdout.splitlines()
    assert "Obsidian wikilink '[[没有\\|表格里]]' is plain text" in lines[0]
    assert "\\\\" not in lines[0] + lines[1], lines
    assert "writes '[表](../设备/液压%20系统.md)'" in lines[1]


def test_a_name_several_files_have_is_not_fixed_and_the_finding_names_them(repo):
    for folder in ("knowledge/a", "knowledge/b"):
        write(repo, f"{folder}/同名.md", "# 同名\n\n内容。\n")
    page = write(repo, "knowledge/crops/amb.md", "# 歧义\n\n见 [[同名]] 与 [[b/同名|乙]]\n")
    result = check("--fix")
    assert result.exit_code == 1
    *shared, line = result.stdout.splitlines()  # (each 同名.md warns of the other first)
    assert [s.split(":")[0] for s in shared if "path-shared-name" in s] == \
        ["knowledge/a/同名.md", "knowledge/b/同名.md"], result.stdout
    assert line.startswith(f"knowledge/crops/amb.md:{FM_LINES + 3}:3: error: link-wikilink: "
                           "Obsidian wikilink '[[同名]]' is plain text to kbtools")
    assert "2 files match ('../a/同名.md', '../b/同名.md'): write a standard relative link " \
           "to the one meant, or a path in the wikilink" in line
    assert page.read_text(encoding="utf-8").endswith("见 [[同名]] 与 [乙](../b/同名.md)\n")


def test_unresolvable_wikilinks_stay_with_their_finding(repo):
    page = write(repo, "knowledge/crops/none.md",
                 "# 无\n\n[[没有这个]] ![[missing.png]] [[液压 系统#^abc123]] [[../../../x]]\n")
    before = page.read_text(encoding="utf-8")
    result = check("--fix")
    assert result.exit_code == 1 and "fixed:" not in result.stderr
    assert page.read_text(encoding="utf-8") == before
    messages = [line.split("link-wikilink: ")[1] for line in result.stdout.splitlines()]
    assert len(messages) == 4
    assert "no file '没有这个' in knowledge/ or assets/: write a standard relative link" in messages[0]
    assert "no file 'missing.png'" in messages[1] and "nothing" not in messages[1]
    assert "a block reference (#^…) has no Markdown equivalent" in messages[2]
    assert "no file '../../../x'" in messages[3]


def test_a_new_file_changes_a_cached_finding(repo):
    """The outcome depends on which files exist: the results cache must not keep it."""
    write(repo, "knowledge/crops/c.md", "# C\n\n[[另一篇]]\n")
    run = CliRunner()
    assert "no file '另一篇'" in run.invoke(main, ["check"]).stdout
    write(repo, "knowledge/crops/另一篇.md", "# 另一篇\n\n内容。\n")
    assert "writes '[另一篇](另一篇.md)'" in run.invoke(main, ["check"]).stdout
    write(repo, "knowledge/设备/另一篇.md", "# 另一篇\n\n内容。\n")
    assert "2 files match" in run.invoke(main, ["check"]).stdout


def test_the_fixed_document_builds_and_its_picture_ships(repo):
    write(repo, "knowledge/crops/corn.md", PLACES)
    with pytest.raises(FindingsError, match=r"corn.md:\d+:\d+: error: link-wikilink"):
        build(load_config(repo), BuildOptions(progress=False))
    assert check("--fix").exit_code == 0
    build(load_config(repo), BuildOptions(progress=False))
    shipped = repo / "dist" / "data" / "source" / "assets" / "images"
    assert (shipped / PASTED).read_bytes() == PNG
    assert (shipped / "玉米 锈病.png").read_bytes() == PNG


def test_parse_and_alt_text():
    link = parse_wikilink("![[图/a b.png|穗部\\|300]]")
    assert (link.embed, link.target, link.heading, link.label, link.image) == (
        True, "图/a b.png", "", "穗部|300", True)
    note = parse_wikilink("[[Note#H1#^blk|shown]]")
    assert (note.target, note.heading, note.label, note.block, note.image) == (
        "Note", "H1#^blk", "shown", True, False)
    assert [image_alt(x) for x in ("300", "300x200", "alt|300", "alt", "", "a|b")] == [
        "", "", "alt", "alt", "", "a|b"]
    assert [image_size(x) for x in ("300", "300x200", "alt|300", "alt", "a|3x")] == [
        ("300", ""), ("300", "200"), ("300", ""), ("", ""), ("", "")]


def test_written_paths_encode_only_what_a_destination_cannot_hold():
    assert written_path("../../assets/images/玉米 锈病 (1).png") == \
        "../../assets/images/玉米%20锈病%20(1).png"
    assert written_path("a(b.png") == "a%28b.png"
    assert written_path("c#1?%.md") == "c%231%3F%25.md"
    assert written_path("plain/path.md") == "plain/path.md"


def findings_of(result) -> set[tuple[str, str]]:
    """(place, code) of each finding printed."""
    return {(line.split(": ")[0], line.split(": ")[2]) for line in result.stdout.splitlines()}


def test_fix_never_writes_an_anchor_the_target_lacks(repo):
    """`[[note#Heading]]` whose heading the note lacks was rewritten to a link whose
    `#anchor` the next `kb check` flagged (`link-anchor`): now the check says so at the
    wikilink, in its one `link-wikilink` line, and `--fix` links to the one closest
    heading, else to the note without an anchor, saying which; checking again finds
    nothing the fix made."""
    write(repo, "knowledge/设备/steps.md", "# Steps\n\n## Step 1\n\nA.\n\n## Step 2\n\nB.\n")
    page = write(repo, "knowledge/crops/anchors.md",
                 "# 锚点\n\n见 [[液压 系统#4.3 液压系统: 压力异场]] 和 [[液压 系统#没有这一节|这里]]\n"
                 "和 [[steps#Step 3]] 和 [[steps#step 2]]\n")
    base = FM_LINES + 3
    before = check()
    assert "error: link-anchor" not in before.stdout  # one line a wikilink
    anchor_lines = [line for line in before.stdout.splitlines() if "no heading" in line]
    assert [line.split(": ")[0] for line in anchor_lines] == [
        f"knowledge/crops/anchors.md:{base}:3", f"knowledge/crops/anchors.md:{base}:30",
        f"knowledge/crops/anchors.md:{base + 1}:3"]
    assert all(": error: link-wikilink: " in line for line in anchor_lines)
    assert "no heading '#43-液压系统-压力异场' in knowledge/设备/液压 系统.md; linked to " \
           "'#43-液压系统-压力异常', the one closest heading; `kb check --fix` writes " \
           "'[液压 系统 > 4.3 液压系统: 压力异场](../设备/液压%20系统.md#43-液压系统-压力异常)'" \
           in anchor_lines[0]
    assert "linked to the document, without an anchor; `kb check --fix` writes " \
           "'[这里](../设备/液压%20系统.md)'" in anchor_lines[1]
    assert "no heading '#step-3' in knowledge/设备/steps.md, and no heading is the one " \
           "closest" in anchor_lines[2]  # step-1 and step-2 are as close
    fixed = check("--fix")
    assert fixed.exit_code == 0, fixed.output
    assert "(no heading '#没有这一节' in knowledge/设备/液压 系统.md, and no heading is the one " \
           "closest: linked to the document, without an anchor)" in fixed.stderr
    assert page.read_text(encoding="utf-8").split("---\n", 2)[2] == (
        "# 锚点\n\n见 [液压 系统 > 4.3 液压系统: 压力异场](../设备/液压%20系统.md#43-液压系统-压力异常) "
        "和 [这里](../设备/液压%20系统.md)\n"
        "和 [steps > Step 3](../设备/steps.md) 和 [steps > step 2](../设备/steps.md#step-2)\n")
    again = check()
    assert again.exit_code == 0 and again.stdout == "", again.stdout


def test_a_missing_heading_of_the_same_document_is_left_with_its_findings(repo):
    """`[[#Heading]]` naming no heading of its own document and none closest: no link can
    be written (an empty one is no fix); the wikilink stays, and so do its findings."""
    page = write(repo, "knowledge/crops/self.md", "# 玉米\n\n## 播种\n\n见 [[#完全不同的东西]]\n")
    before = check()
    assert [code for _, code in findings_of(before)] == ["link-wikilink"]
    assert "no heading '#完全不同的东西' in this document" in before.stdout
    result = check("--fix")
    assert result.exit_code == 1 and ": fixed: " not in result.stderr
    assert f"knowledge/crops/self.md:{FM_LINES + 5}:3: not fixed: no heading " \
           "'#完全不同的东西' in this document" in result.stderr
    assert page.read_text(encoding="utf-8").endswith("见 [[#完全不同的东西]]\n")
    assert findings_of(check()) == findings_of(before)


def test_the_wikilink_finding_says_what_the_fix_writes_and_follows_the_note(repo):
    """The `link-wikilink` finding said `--fix` writes the anchor as written while the
    `link-anchor` at the same place (and `--fix`) wrote the closest heading or none: the
    wikilink's message was cached with its document. Now its one line says what is wrong
    with the heading and what `--fix` writes, and a heading added to the note alone (the
    linking document unchanged, cache on) changes it."""
    write(repo, "knowledge/设备/steps.md", "# Steps\n\n## Step 1\n\nA.\n\n## Step 2\n\nB.\n")
    write(repo, "knowledge/crops/w.md", "# 维修\n\n见 [[steps#Step 3]] 和 [[steps#Stepz 1]]\n"
          "和 [[#没有的节]]\n")
    place = f"knowledge/crops/w.md:{FM_LINES + 3}"

    def messages(*args: str) -> dict[tuple[str, str], str]:
        result = CliRunner().invoke(main, ["check", *args])  # the results cache on
        return {(line.split(": ")[0], line.split(": ")[2]): line.split(": ", 3)[3]
                for line in result.stdout.splitlines()}

    first = messages()
    assert not any(code == "link-anchor" for _, code in first)
    assert "no heading '#step-3' in knowledge/设备/steps.md" in \
        first[(f"{place}:3", "link-wikilink")]
    assert "linked to '#step-1', the one closest heading" in \
        first[(f"{place}:22", "link-wikilink")]
    assert "writes '[steps > Step 3](../设备/steps.md)'" in first[(f"{place}:3", "link-wikilink")]
    assert "writes '[steps > Stepz 1](../设备/steps.md#step-1)'" in \
        first[(f"{place}:22", "link-wikilink")]
    same_doc = first[(f"knowledge/crops/w.md:{FM_LINES + 4}:3", "link-wikilink")]
    assert "`kb check --fix` leaves it as it is" in same_doc and "fix` writes" not in same_doc
    write(repo, "knowledge/设备/steps.md", "# Steps\n\n## Step 1\n\n## Step 2\n\n## Step 3\n")
    second = messages()
    assert "writes '[steps > Step 3](../设备/steps.md#step-3)'" in \
        second[(f"{place}:3", "link-wikilink")]
    assert "no heading" not in second[(f"{place}:3", "link-wikilink")]
    assert second == messages("--no-cache")


def test_a_label_holding_an_html_tag_is_one_wikilink(repo):
    # Obsidian reads `[[…]]` before HTML; markdown-it read `![[p.png|<a>]]` as text around an
    # inline tag, so the embed went unreported (and showed as raw text on the page). A tag
    # outside any wikilink is still read for its links.
    write(repo, "knowledge/crops/tags.md",
          "# 标签\n\n图 ![[玉米 锈病.png|<a>]] 与 [[液压 系统|<b>压力</b>]] 和 "
          "<img src=\"nowhere.png\" alt=\"x\"> 及 <!-- [[液压 系统]] -->。\n")
    result = check()
    line = FM_LINES + 3
    assert wikilink_findings(result) == [(line, 3, "![[玉米 锈病.png|<a>]]"),
                                         (line, 24, "[[液压 系统|<b>压力</b>]]")], result.stdout
    assert f"knowledge/crops/tags.md:{line}:" in result.stdout
    assert "path-missing: 'nowhere.png' does not exist" in result.stdout
    check("--fix")
    body = (repo / "knowledge/crops/tags.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    # the alt text is text: its `<` escaped, so that Markdown reads no tag in it
    assert "图 ![\\<a>](../../assets/images/玉米%20锈病.png) 与 " \
        "[<b>压力</b>](../设备/液压%20系统.md) 和 " in body, body


def test_a_wikilink_ending_in_a_backslash_is_named_with_what_to_write(repo):
    # `\]` is an escaped bracket to Markdown: `![[p.png|x\]]` closed no embed, and was
    # reported by nothing
    page = write(repo, "knowledge/crops/slash.md",
                 "# 斜杠\n\n图 ![[玉米 锈病.png|x\\]] 与 [[液压 系统\\]]。\n")
    before = page.read_bytes()
    result = check()
    line = FM_LINES + 3
    assert result.exit_code == 1
    assert wikilink_findings(result) == [(line, 3, "![[玉米 锈病.png|x\\]]"),
                                         (line, 23, "[[液压 系统\\]]")], result.stdout
    assert "ends in a backslash" in result.stdout
    assert "write '![[玉米 锈病.png|x]]'" in result.stdout
    assert "write '[[液压 系统]]'" in result.stdout
    check("--fix")
    assert page.read_bytes() == before


def test_a_wikilink_whose_bar_ends_its_table_cell_is_named_and_fixed(repo):
    """`| 压力 | [[液压 系统|表格里]] |` (the `|` not written `\\|`, as Obsidian asks in a table)
    was only "table row has 3 cells ...: remove 1 cell", and `--fix` left it: its two halves
    are no wikilink to a cell. The row names the wikilink and `--fix` writes the link, in a
    callout's table too; one in a code span is text."""
    page = write(repo, "knowledge/crops/bar.md",
                 "# 表\n\n| 项 | 见 |\n|---|---|\n| 压力 | [[液压 系统|表格里]] |\n"
                 "| 代码 | `[[液压 系统|x]]` |\n\n"
                 "> [!tip] 表\n> | 项 | 见 |\n> |---|---|\n> | 压力 | [[液压 系统#4.3 液压系统: 压力异常|压力]] |\n")
    result = check()
    row, callout = FM_LINES + 5, FM_LINES + 11
    assert wikilink_findings(result) == [(row, 8, "[[液压 系统|表格里]]"),
                                         (callout, 10, "[[液压 系统#4.3 液压系统: 压力异常|压力]]")]
    cells = [line for line in result.stdout.splitlines() if "table-cells" in line]
    assert cells[0] == (f"knowledge/crops/bar.md:{row}:1: error: table-cells: table row has "
                        "3 cells, the header (line "f"{row - 2}) has 2 cells: the '|' of the "
                        "wikilink [[液压 系统|表格里]] ends its cell (in Obsidian too): write it "
                        "[[液压 系统\\|表格里]], or the standard link kb check --fix writes")
    assert len(cells) == 3 and "remove 1 cell" in cells[1]  # the code span's bar is a cell's
    check("--fix")
    text = page.read_text(encoding="utf-8")
    assert "| 压力 | [表格里](../设备/液压%20系统.md) |" in text
    assert "> | 压力 | [压力](../设备/液压%20系统.md#43-液压系统-压力异常) |" in text
    assert [line for line in check().stdout.splitlines() if "error" in line] == [cells[1]]


def test_full_width_bar_and_hash_split_a_wikilink_as_the_half_width_do(repo):
    """A Chinese input method writes `｜` and `＃`: `[[液压 系统｜看这里]]` named no file
    '液压 系统｜看这里' and got no fix; it is read, and fixed, as `[[液压 系统|看这里]]`."""
    page = write(repo, "knowledge/crops/wide.md",
                 "# 宽\n\n[[液压 系统｜看这里]] 和 [[液压 系统＃4.3 液压系统: 压力异常]] 和 "
                 "[[液压 系统＃4.3 液压系统: 压力异常｜压力]] 和 [[液压 系统|第＃1｜2]]\n")
    lines = check().stdout.splitlines()
    assert len(lines) == 4 and all("`kb check --fix` writes" in line for line in lines), lines
    assert check("--fix").exit_code == 0
    assert page.read_text(encoding="utf-8").split("---\n", 2)[2] == (
        "# 宽\n\n[看这里](../设备/液压%20系统.md) 和 [液压 系统 > 4.3 液压系统: 压力异常]"
        "(../设备/液压%20系统.md#43-液压系统-压力异常) 和 "
        "[压力](../设备/液压%20系统.md#43-液压系统-压力异常) 和 [第＃1｜2](../设备/液压%20系统.md)\n")
    link = parse_wikilink("[[液压 系统＃小节｜看]]")
    assert (link.target, link.heading, link.label) == ("液压 系统", "小节", "看")
    assert with_target(link, "../设备/液压 系统") == "[[../设备/液压 系统＃小节｜看]]"
