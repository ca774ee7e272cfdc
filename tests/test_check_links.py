"""kb check's links: anchors across documents, near misses suggested (the query and fragment
as written), reference links and autolinks, code left alone, absolute paths."""

from __future__ import annotations

from functools import partial

from kbtools.check.engine import check_file, check_paths, make_context
from kbtools.check.fix import NotFixed, apply_edits, fix_paths, fix_results
from kbtools.config import load_config
from tests.kbfixtures import GOOD_FM
from tests.test_check import codes_for, write_repo


def test_cross_document_anchors_and_cjk_slugs(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "manual.md").write_text(
        GOOD_FM + "# 手册\n\n## 4.3 液压系统压力异常\n\n## FAQ: What's new?\n\n## FAQ: What's new?\n")
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# T\n\n[ok](manual.md#43-液压系统压力异常) [ok2](manual.md#faq-whats-new-1)"
        " [enc](manual.md#43-%E6%B6%B2%E5%8E%8B%E7%B3%BB%E7%BB%9F%E5%8E%8B%E5%8A%9B%E5%BC%82%E5%B8%B8)"
        " [bad](manual.md#4.3) [case](manual.md#FAQ-whats-new)\n")
    found = check_paths([root / "knowledge"], load_config(root))
    assert [f.code for f in found] == ["link-anchor", "link-anchor"]
    assert "did you mean '#faq-whats-new'" in found[1].message


def test_a_near_miss_link_suggests_the_closest_existing_target(tmp_path):
    """`#step` for a heading `Steps`, `pump-maintenance.md` for `pump_maintenance.md`, a
    misspelt folder, the right name in another folder: no suggestion was given."""
    root = write_repo(tmp_path)
    for folder in ("eq", "other"):
        (root / "knowledge" / folder).mkdir()
    (root / "knowledge" / "eq" / "pump_maintenance.md").write_text(GOOD_FM + "# P\n\n## Steps\n")
    (root / "knowledge" / "other" / "valve-guide.md").write_text(GOOD_FM + "# V\n")
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# T\n\n[a](eq/pump_maintenance.md#step) [b](eq/pump-maintenance.md)"
        " [c](eq/valve-guide.md) [d](equ/pump_maintenance.md) [e](eq/zzz.md)\n")
    found = check_paths([root / "knowledge" / "a.md"], load_config(root))
    assert [(f.code, f.message.partition("; ")[2]) for f in found] == [
        ("link-anchor", "did you mean '#steps'?"),
        ("path-missing", "did you mean 'eq/pump_maintenance.md'?"),
        ("path-missing", "did you mean 'other/valve-guide.md'?"),
        ("path-missing", "did you mean 'eq/pump_maintenance.md'?"),
        ("path-missing", "")]


def test_a_suggested_path_names_the_anchor_fix_would_write(tmp_path):
    """"did you mean 'eq/pump_maintenance.md#step'" kept an anchor naming no heading of the
    suggested document (its heading is `Steps`), and a full-width name's finding kept the
    anchor `--fix` then changed: a suggestion names the closest heading or none, and says
    what `--fix` writes, letter for letter."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "eq").mkdir()
    (root / "knowledge" / "eq" / "pump_maintenance.md").write_text(
        GOOD_FM + "# P\n\n## Steps\n\n## 安全\n", encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n[a](eq/pump-maintenance.md#step) [b](eq/pump-maintenance.md#zzz)"
                   " [c](eq/pump-maintenance.md#安全) [d](eq/ｐump_maintenance.md#stpes)\n",
                   encoding="utf-8")
    found = check_paths([doc], load_config(root))
    assert [(f.code, f.message.partition("; ")[2]) for f in found] == [
        ("path-missing", "did you mean 'eq/pump_maintenance.md#steps'?"),
        ("path-missing", "did you mean 'eq/pump_maintenance.md'?"),
        ("path-missing", "did you mean 'eq/pump_maintenance.md#安全'?"),
        ("link-anchor", "did you mean '#steps'?; `kb check --fix` links to '#steps'"),
        ("path-missing", "did you mean 'eq/pump_maintenance.md#steps'?")]
    changes, _ = _fix(root)
    assert [c.split(": ", 1)[1].partition(" (")[0] for c in changes] == [
        "fixed: eq/ｐump_maintenance.md#stpes -> eq/pump_maintenance.md#steps"]


def test_a_short_name_one_typo_off_is_suggested(tmp_path):
    """`#病害防冶` for the heading `病害防治` (one character wrong of four: difflib finds them
    only 0.75 alike) got no "did you mean", nor `#stpe` for `Step`, a `用药标准` file linked
    as `用药标注.md`; a name one typo from none (or too short to tell) still gets none."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "用药标准.md").write_text(GOOD_FM + "# 用药\n", encoding="utf-8")
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# 病害防治\n\n## Step\n\n## 概述\n\n[a](#病害防冶) [b](#stpe) [c](#病防治)"
        " [d](#病害治防) [e](用药标注.md) [f](#概要) [g](#病虫害防治方法)\n", encoding="utf-8")
    found = check_paths([root / "knowledge" / "a.md"], load_config(root))
    assert [(f.code, f.message.partition("; ")[2]) for f in found] == [
        ("link-anchor", "did you mean '#病害防治'?"),
        ("link-anchor", "did you mean '#step'?"),
        ("link-anchor", "did you mean '#病害防治'?"),
        ("link-anchor", "did you mean '#病害防治'?"),
        ("path-missing", "did you mean '用药标准.md'?"),
        ("link-anchor", ""),
        ("link-anchor", "")]


def test_a_suggested_or_fixed_path_keeps_the_query_and_fragment_written(tmp_path):
    """`assets/x.png?raw` from a folder below got "did you mean '../assets/Photo.png'", its
    `?raw` dropped, and `--fix` of an absolute `/assets/Photo.png?raw` wrote the path
    without it: the query and fragment as written stay on what is suggested and written."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "eq").mkdir()
    doc = root / "knowledge" / "eq" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n![p](assets/Photo.png?raw) ![q](../assets/Photo.png#v%201)"
                   " <img alt=\"r\" src=\"assets/Photo.png?w=2#top\">\n\n"
                   "![s](/assets/Photo.png?raw)\n", encoding="utf-8")
    ctx = make_context(load_config(root))
    result = check_file(doc, ctx)
    assert [(f.code, f.message.partition(": use ")[2] or f.message.partition("; ")[2])
            for f in result.findings] == [
        ("path-missing", "did you mean '../../assets/Photo.png?raw'?"),
        ("path-missing", "did you mean '../../assets/Photo.png#v%201'?"),
        ("path-missing", "did you mean '../../assets/Photo.png?w=2#top'?"),
        ("path-absolute", "'../../assets/Photo.png?raw'")]
    apply_edits(doc, list(result.edits), root)
    assert doc.read_text(encoding="utf-8").endswith("![s](../../assets/Photo.png?raw)\n")


def test_anchor_into_file_outside_the_checked_set(tmp_path):
    root = write_repo(tmp_path)
    (root / "README.md").write_text("# Read me\n\n## Set up\n")
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# T\n\n[a](../README.md#set-up) [b](../README.md#install)\n")
    found = check_paths([root / "knowledge" / "a.md"], load_config(root))
    assert [(f.code, f.message) for f in found] == [
        ("link-anchor", "no heading '#install' in README.md")]


def test_reference_links_and_autolinks(tmp_path):
    root = write_repo(tmp_path)
    body = "# T\n\nSee [photo][p] and <https://example.org>.\n\n[p]: ../assets/nope.png\n"
    (root / "knowledge" / "a.md").write_text(GOOD_FM + body)
    assert codes_for(root) == {"knowledge/a.md": {"path-missing"}}


def test_code_is_not_checked(tmp_path):
    root = write_repo(tmp_path)
    body = "# T\n\n```md\n![x](C:\\bad.png)\n$$\n| a |\n```\n\n`[y](/abs)` and `$$`\n"
    (root / "knowledge" / "a.md").write_text(GOOD_FM + body)
    assert codes_for(root) == {}


def test_latex_source_in_a_latex_fence_is_code(tmp_path):
    """Typora, Obsidian and GitHub show a ```latex fence as code: a report template or a
    macro there is an example, not a formula the allowlist refuses (only ```math is one)."""
    root = write_repo(tmp_path)
    body = ("# T\n\n```latex\n\\documentclass{article}\n\\usepackage{ctex}\n% 正文\n```\n\n"
            "```tex\n\\def\\foo{bar}\n```\n\n```math\n\\csname x\n```\n")
    (root / "knowledge" / "a.md").write_text(GOOD_FM + body)
    found = check_paths([root / "knowledge"], load_config(root))
    assert [(f.code, f.line) for f in found] == [("math-invalid", len(GOOD_FM.split("\n")) + 12)]


def test_backslashed_absolute_paths(tmp_path):
    root = write_repo(tmp_path)
    body = f"# T\n\n![u](\\\\server\\share\\x.png) ![v]({root}\\assets\\Photo.png)\n"
    body = body.replace(str(root), str(root).replace("/", "\\"))
    (root / "knowledge" / "a.md").write_text(GOOD_FM + body)
    found = check_paths([root / "knowledge"], load_config(root))
    assert [(f.code, f.col) for f in found] == [
        ("path-absolute", 6), ("path-backslash", 6), ("path-absolute", 33),
        ("path-backslash", 33)]
    assert "link it by a path relative" in found[0].message
    assert "use '../assets/Photo.png'" in found[2].message


def test_repo_root_relative_absolute_path_is_fixable_target(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "a.md").write_text(GOOD_FM + "# T\n\n![x](/assets/Photo.png)\n")
    [f] = check_paths([root / "knowledge"], load_config(root))
    assert f.code == "path-absolute" and "use '../assets/Photo.png'" in f.message


def _fix(root):
    from kbtools.check.fix import fix_paths
    cfg = load_config(root)
    changes, _, findings = fix_paths([root / "knowledge"], lambda: make_context(cfg))
    return [c.format() for c in changes], findings


def test_an_absolute_link_not_written_as_it_reads_keeps_to_the_anchor_rules(tmp_path):
    """A destination located nowhere as written (a character reference; an HTML attribute's
    `&amp;`) was told with its anchor as written (`use 'manual.md#step'`, a heading the
    document lacks) and its link-anchor promised a fix `--fix` never wrote; an HTML
    `href="…#step&amp;"` was located by its decoded prefix and `--fix` left `…#stepsamp;`.
    The image inside a link's text (`[![i](/x.png)](/d.md)`) was not located at all."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "manual.md").write_text(GOOD_FM + "# M\n\n## Steps\n\n## Other\n")
    body = ("# T\n\n[e](/knowledge/manual.md#st&#101;p) [z](/knowledge/manual.md#zz&#122;z)\n\n"
            '<a href="/knowledge/manual.md#step&amp;">h</a>\n\n'
            "[![i](/assets/Photo.png)](/knowledge/manual.md#step)\n")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + body)
    found = check_paths([doc], load_config(root))
    told = [(f.line, f.col, f.code, f.message) for f in found]
    said = "absolute path '/knowledge/manual.md#"
    assert (12, 5, "path-absolute", f"{said}step': use 'manual.md#steps'") in told
    assert (12, 41, "path-absolute", f"{said}zzzz': use 'manual.md'") in told
    assert not [f for f in found if f.line in (12, 14) and "--fix" in f.message]
    assert (16, 7, "path-absolute",
            "absolute path '/assets/Photo.png': use '../assets/Photo.png'") in told
    changes, after = _fix(root)
    assert [c.split(": ")[1] for c in changes] == ["not fixed"] * 3 + ["fixed"] * 2
    assert "write 'manual.md#steps' by hand" in changes[0]
    assert doc.read_text() == GOOD_FM + body.replace(
        "[![i](/assets/Photo.png)](/knowledge/manual.md#step)",
        "[![i](../assets/Photo.png)](manual.md#steps)")
    assert {f.line for f in after} == {12, 14}


def test_a_destination_not_written_as_it_reads_is_told_at_its_own_column(tmp_path):
    """A destination with a character reference (`m&#105;ssing.md`), an HTML attribute's
    entity or a reference definition's (`[r]: ../x&#46;md`) was told at column 1 of its
    line; it is told where it is written, in characters (a CJK line's too), as any other,
    a reference link's at its definition."""
    root = write_repo(tmp_path)
    body = ("# T\n\n前后 [a](m&#105;ssing.md) 和 <a href=\"x&amp;y.md\">h</a>"
            " [b](<n&#111; pe.md>)\n\n见 [c][r] 与 [d][r]\n\n  [r]: \\_g&#111;ne.md \"t\"\n")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    found = check_paths([doc], load_config(root))
    first = (GOOD_FM + body).split("\n").index(body.split("\n")[2]) + 1
    assert [(f.line - first, f.col, f.code) for f in found] == [
        (0, 8, "path-missing"), (0, 36, "path-missing"), (0, 59, "path-missing"),
        (4, 8, "path-missing")]


def test_a_full_width_name_is_fixed_with_its_backslashes_in_one_run(tmp_path):
    """`..\\docs\\Ｒeadme.md` (a full-width `Ｒ`, as a Chinese input method types it, and
    backslashes) got only its '/' from `--fix`, leaving a path `kb check` rejected; a name
    that differs by more than compatibility forms is still only suggested."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "docs").mkdir()
    (root / "knowledge" / "sub").mkdir()
    (root / "knowledge" / "docs" / "Readme.md").write_text(GOOD_FM + "# R\n\n## Steps\n")
    doc = root / "knowledge" / "sub" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n前 [a](..\\docs\\Ｒeadme.md#step) [b](../docs/ｒｅａｄｍｅ.md)"
                   " [c](../docs/Readme2.md) 后\n", encoding="utf-8")
    changes, after = _fix(root)
    assert [c.split(": ", 1)[1] for c in changes] == [
        "fixed: ..\\docs\\Ｒeadme.md#step -> ../docs/Readme.md#steps (no heading '#step' in "
        "knowledge/docs/Readme.md; linked to '#steps', the one closest heading)",
        "fixed: ../docs/ｒｅａｄｍｅ.md -> ../docs/Readme.md"]
    assert doc.read_text(encoding="utf-8").endswith(
        "前 [a](../docs/Readme.md#steps) [b](../docs/Readme.md) [c](../docs/Readme2.md) 后\n")
    assert [(f.code, f.col) for f in after] == [("path-missing", 59)]
    assert _fix(root)[0] == []


def test_full_width_slashes_and_dots_in_a_path_are_fixed(tmp_path):
    """`..／docs／Readme.md` and `．．/docs/Readme.md` (a Chinese input method's full-width
    `／` and `．`) were a `path-missing` with no suggestion (the former) or one `--fix` did
    not write: each is read as the `/` and `..` it stands for, and fixed; one leading out of
    the repository so read is not."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "docs").mkdir()
    (root / "knowledge" / "sub").mkdir()
    (root / "knowledge" / "docs" / "Readme.md").write_text(GOOD_FM + "# R\n")
    doc = root / "knowledge" / "sub" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n[a](..／docs／Readme.md) [b](．．/docs/Readme.md) "
                   "[c](..／..／..／x.md)\n", encoding="utf-8")
    changes, after = _fix(root)
    assert [c.split(": ", 1)[1] for c in changes] == [
        "fixed: ..／docs／Readme.md -> ../docs/Readme.md",
        "fixed: ．．/docs/Readme.md -> ../docs/Readme.md"]
    assert "[a](../docs/Readme.md) [b](../docs/Readme.md) [c](..／..／..／x.md)" in \
        doc.read_text(encoding="utf-8")
    assert [f.code for f in after] == ["path-missing"]


def test_a_full_width_hash_before_an_anchor_is_fixed_as_the_half_width_one(tmp_path):
    """`pump.md＃安装步骤` (a Chinese input method's `＃`) was a `path-missing` with no
    suggestion: it is read as `pump.md#安装步骤`, suggested and fixed so, its anchor matched
    to the headings as any; a file name missing before the `＃` is left as it was."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "eq").mkdir()
    (root / "knowledge" / "eq" / "pump.md").write_text(GOOD_FM + "# P\n\n## 安装步骤\n",
                                                       encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n[a](eq/pump.md＃安装步骤) [b](eq/Pump.md＃安装步骤) "
                   "[c](eq/pump.md＃安装步聚) [d](eq/nope.md＃安装步骤)\n", encoding="utf-8")
    found = check_paths([doc], load_config(root))
    assert [(f.code, f.message.partition("; ")[2]) for f in found] == [
        ("path-missing", "did you mean 'eq/pump.md#安装步骤'?"),
        ("path-missing", "did you mean 'eq/pump.md#安装步骤'?"),
        ("link-anchor", "did you mean '#安装步骤'?; `kb check --fix` links to '#安装步骤'"),
        ("path-missing", "did you mean 'eq/pump.md#安装步骤'?"),
        ("path-missing", "")]
    changes, after = _fix(root)
    assert len(changes) == 3
    assert "[a](eq/pump.md#安装步骤) [b](eq/pump.md#安装步骤) [c](eq/pump.md#安装步骤) " \
        "[d](eq/nope.md＃安装步骤)" in doc.read_text(encoding="utf-8")
    assert [f.code for f in after] == ["path-missing"]


def test_a_full_width_question_mark_before_a_query_is_fixed_as_the_half_width_one(tmp_path):
    """`pump.md？v=2` (a Chinese input method's `？`) was a `path-missing` with no suggestion,
    and `pump.md？a=1#安装步骤` too (its anchor split off, the full-width `＃` alone was
    read): both are read with the half-width `?` (and `#`), suggested and fixed so, the
    anchor matched to the headings as any; a missing file before the `？` is left."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "eq").mkdir()
    (root / "knowledge" / "eq" / "pump.md").write_text(GOOD_FM + "# P\n\n## 安装步骤\n",
                                                       encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n[a](eq/pump.md？v=2) [b](eq/Pump.md？a=1#安装步骤) "
                   "[c](eq/pump.md﹖a=1＃安装步聚) [d](eq/nope.md？v=2)\n", encoding="utf-8")
    found = check_paths([doc], load_config(root))
    assert [(f.code, f.message.partition("; ")[2]) for f in found] == [
        ("path-missing", "did you mean 'eq/pump.md?v=2'?"),
        ("path-missing", "did you mean 'eq/pump.md?a=1#安装步骤'?"),
        ("link-anchor", "did you mean '#安装步骤'?; `kb check --fix` links to '#安装步骤'"),
        ("path-missing", "did you mean 'eq/pump.md?a=1#安装步骤'?"),
        ("path-missing", "")], found
    assert "full-width '？' starts no query string" in found[0].message
    changes, after = _fix(root)
    assert len(changes) == 3, changes
    assert "[a](eq/pump.md?v=2) [b](eq/pump.md?a=1#安装步骤) [c](eq/pump.md?a=1#安装步骤) " \
        "[d](eq/nope.md？v=2)" in doc.read_text(encoding="utf-8")
    assert [f.code for f in after] == ["path-missing"]


def test_a_case_backslash_or_unicode_fix_not_written_as_it_reads_is_left_by_hand(tmp_path):
    """A destination with a character reference (`m&#97;nual.md`, `Caf&#233;.md`) or an HTML
    attribute's entity got path-case, path-backslash and path-unicode findings, the last
    promising that `kb check --fix` writes the link, and `--fix` then wrote nothing and said
    nothing; it now says what to write by hand, as for path-absolute, and changes no byte."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "docs").mkdir()
    (root / "knowledge" / "docs" / "Manual.md").write_text(GOOD_FM + "# M\n\n## Steps\n")
    (root / "knowledge" / "docs" / "Cafe\u0301.md").write_text(GOOD_FM + "# C\n")  # NFD name
    body = ("# T\n\n[a](docs/m&#97;nual.md)\n\n[b](docs\\M&#97;nual.md#st&#101;p)\n\n"
            "[c](docs/Caf&#233;.md)\n\n<a href=\"docs/manual.md?a=1&amp;b=2\">d</a>\n")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    found = check_paths([doc], load_config(root))
    assert [(f.line, f.code) for f in found] == [
        (12, "path-case"), (14, "link-anchor"), (14, "path-backslash"), (16, "path-unicode"),
        (18, "path-case")]
    assert not [f for f in found if "--fix" in f.message]
    assert found[3].message.endswith("or link 'docs/Cafe\u0301.md'")
    changes, after = _fix(root)
    by_hand = [c.split(" by hand")[0].rsplit(" ", 1)[1] for c in changes]
    assert [c.split(": ")[1] for c in changes] == ["not fixed"] * 4
    assert by_hand == ["'docs/Manual.md'", "'docs/Manual.md#steps'", "'docs/Cafe\u0301.md'",
                       "'docs/Manual.md?a=1&b=2'"]
    assert doc.read_text(encoding="utf-8") == GOOD_FM + body
    assert [(f.line, f.code) for f in after if f.path == "knowledge/a.md"] == \
        [(f.line, f.code) for f in found]


def test_a_document_changed_since_it_was_checked_is_not_fixed_in_part(tmp_path):
    """Its edits are written together or not at all: one no longer where the check saw it
    (an editor saved the file in between) leaves the whole file as it is, with one
    `not fixed` line naming the file, line and column."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "Pump.md").write_text(GOOD_FM + "# P\n", encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    doc.write_text(GOOD_FM + "# T\n\n[a](pump.md)\n\n[b](pump.md)\n", encoding="utf-8")
    result = check_file(doc, make_context(load_config(root)))
    assert len(result.edits) == 2
    edited = doc.read_text(encoding="utf-8").replace("[b](pump.md)", "See [b](pump.md)")
    doc.write_text(edited, encoding="utf-8")
    (change,) = fix_results([result], root)
    assert isinstance(change, NotFixed)
    line = GOOD_FM.count("\n") + 5
    assert change.format() == f"knowledge/a.md:{line}:5: not fixed: changed since it was " \
        "checked (no 'pump.md' here now): nothing of it was written; run `kb check --fix` again"
    assert doc.read_text(encoding="utf-8") == edited


def test_a_link_to_an_obsidian_block_says_pages_link_to_headings(tmp_path):
    """Obsidian with wikilinks off (as docs/knowledge-authoring.md asks) writes a link to a
    paragraph's block id as `[x](doc.md#^id)`: "no heading '#^leak-rule'" read as if the
    id were mistyped, though the paragraph holds it; GitHub's page gives blocks none."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "manual.md").write_text(
        GOOD_FM + "# 手册\n\n## 泄漏\n\n每分钟不超过 5 滴。 ^leak-rule\n\n## Limits\n\n"
        "Below 8 bar. ^limit\n", encoding="utf-8")
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# T\n\n见 [规则](manual.md#^leak-rule)，[limit](manual.md#%5Elimit) "
        "[ok](manual.md#泄漏)\n", encoding="utf-8")
    found = check_paths([root / "knowledge"], load_config(root))
    assert [(f.line, f.col, f.code) for f in found] == [(12, 8, "link-anchor"),
                                                        (12, 38, "link-anchor")]
    assert [f.message for f in found] == [
        f"no heading '#^{name}' in knowledge/manual.md; '#^{name}' is an Obsidian block "
        f"reference, and GitHub's page gives a block no anchor; the block (line {line} of "
        f"knowledge/manual.md) stands under the heading '{title}': link '#{slug}'"
        for name, line, title, slug in (("leak-rule", 14, "泄漏", "泄漏"),
                                        ("limit", 18, "Limits", "limits"))]


def test_a_picture_linked_on_the_authors_disk_names_its_copy_in_the_repository(
        tmp_path, monkeypatch):
    """Typora links a pasted picture where it lies (`C:\\Users\\…\\泵.png`, `file:///…`,
    `/Users/…`); the author copies it into assets/ but the finding only said "copy it into
    the repository": now it names the copy there, when one file has that name."""
    from click.testing import CliRunner

    from kbtools.cli import main

    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets" / "images" / "old").mkdir(parents=True)
    for name in ("泵.png", "pump.png", "old/pump.png"):
        (tmp_path / "assets" / "images" / name).write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "knowledge" / "t" / "a.md").write_text(GOOD_FM + (
        "# 泵\n\n<img src=\"C:\\Users\\alice\\Pictures\\泵.png\" alt=\"泵\">\n\n"
        "![泵](file:///C:/Users/alice/Pictures/%E6%B3%B5.png)\n\n"
        "![泵](/Users/alice/Desktop/泵.png)\n\n"
        "![pump](/Users/alice/Desktop/pump.png)\n\n"  # two files of that name: none said
        "![seal](/Users/alice/Desktop/seal.png)\n"), encoding="utf-8")  # none of that name
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    told = [line.split(": error: path-absolute: ")[1] for line in res.stdout.splitlines()]
    copy = " (the repository has '../../assets/images/泵.png': link that if it is the same file)"
    assert [t.endswith(copy) for t in told] == [True, True, True, False, False], told
    assert all("copy it into the repository" in t for t in told)


def test_obsidian_s_app_url_of_a_picture_on_the_authors_disk_is_an_absolute_path(
        tmp_path, monkeypatch):
    """A picture copied from Obsidian's reading view as HTML names it by Obsidian's own URL
    of the file on the author's disk (`<img src="app://local/C:/…/泵.png">`, newer versions
    `app://<id>/…`): `kb check` passed it as no link of ours, and no device, GitHub or
    other author shows it. It is `path-absolute` as `file:///…` is, naming the copy in the
    repository."""
    from click.testing import CliRunner

    from kbtools.cli import main

    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets" / "images").mkdir(parents=True)
    (tmp_path / "assets" / "images" / "泵.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "knowledge" / "t" / "a.md").write_text(GOOD_FM + (
        "# 泵\n\n<img src=\"app://local/C:/Users/alice/vault/%E6%B3%B5.png\" alt=\"泵\">\n\n"
        "外观 <img src=\"app://6f2a1c/Users/alice/vault/泵.png?1699999\" alt=\"泵\"> 见上。\n\n"
        "<video src=\"APP://local/D:/vault/demo.mp4\"></video>\n"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    told = [line.split(": error: path-absolute: ")[1] for line in res.stdout.splitlines()]
    copy = " (the repository has '../../assets/images/泵.png': link that if it is the same file)"
    assert [t.endswith(copy) for t in told] == [True, True, False], res.stdout
    assert all(t.startswith("absolute path 'app://") or t.startswith("absolute path 'APP://")
               for t in told)


def test_an_anchor_written_twice_is_suggested_once_and_fixed_when_it_names_a_heading(tmp_path):
    """`[安装](pump.md#安装#安装)` (a heading path pasted after the heading, or the anchor
    typed twice) got no "did you mean": the single fragment is suggested, and `--fix`
    writes it when it names a heading, and never when it does not."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "pump.md").write_text(GOOD_FM + "# 泵\n\n## 安装\n\n## Install\n",
                                                encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    body = ("# T\n\n## 部件\n\n[a](pump.md#安装#安装) [b](pump.md#install#install)"
            " [c](#部件#部件) [d](pump.md#%E5%AE%89%E8%A3%85#安装) [e](pump.md#保养#保养)\n")
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    found = check_paths([doc], load_config(root))
    said = "`kb check --fix` links to"
    assert [f.message for f in found] == [
        f"no heading '#安装#安装' in knowledge/pump.md; did you mean '#安装'?; {said} '#安装'",
        f"no heading '#install#install' in knowledge/pump.md; did you mean '#install'?; {said} "
        "'#install'",
        f"no heading '#部件#部件' in this document; did you mean '#部件'?; {said} '#部件'",
        f"no heading '#安装#安装' in knowledge/pump.md; did you mean '#安装'?; {said} "
        "'#%E5%AE%89%E8%A3%85'",
        "no heading '#保养#保养' in knowledge/pump.md"]
    changes, _, left = fix_paths([doc], partial(make_context, load_config(root)))
    assert doc.read_text(encoding="utf-8") == GOOD_FM + body.replace("#安装#安装", "#安装") \
        .replace("#install#install", "#install").replace("#部件#部件", "#部件") \
        .replace("#%E5%AE%89%E8%A3%85#安装", "#%E5%AE%89%E8%A3%85")
    assert [c.format().split(": ", 1)[1] for c in changes if isinstance(c, NotFixed)] == [
        "not fixed: no heading '#保养' in knowledge/pump.md: link one by hand"]
    assert [f.message for f in left] == ["no heading '#保养#保养' in knowledge/pump.md"]


def test_an_anchor_written_as_a_heading_s_title_is_told_and_fixed_to_its_anchor(tmp_path):
    """`[见](#安装步骤（二）)` (a heading's title, as Typora and Obsidian follow one, its
    brackets full-width or half-width) was told "no heading '#安装步骤（二）'" of a heading the
    document has; an anchor in other letters and spaces (`#ｓｅｔｕｐ　ｓｔｅｐｓ`, an
    ideographic space) was offered a fuzzy guess. Each is now told the anchor to write, and
    `--fix` wrote none of them (`#Replacing%20the%20seal`, Typora's link to a section, stayed
    broken after `kb check --fix` named its anchor): it writes each that names a heading."""
    root = write_repo(tmp_path)
    (root / "knowledge" / "pump.md").write_text(
        GOOD_FM + "# 泵\n\n## 安装步骤（二）\n\n## Ｓｅｔｕｐ　Ｓｔｅｐｓ\n\n## Replacing the seal\n",
        encoding="utf-8")
    doc = root / "knowledge" / "a.md"
    body = ("# T\n\n## 第一步：准备\n\n[a](pump.md#安装步骤（二）)\n"
            "[b](pump.md#安装步骤(二)) [c](#第一步:准备) [d](pump.md#ｓｅｔｕｐ　ｓｔｅｐｓ)\n"
            "[e](pump.md#安装步骤（三）) [f](#第一步准备)\n"
            "[g](pump.md#Replacing%20the%20seal) [h](<pump.md#Replacing the seal> \"t\")\n")
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    rule = ("(an anchor is the title in lower case, its punctuation dropped and each space a "
            "'-', as GitHub's page and the web app make it; Typora and Obsidian follow a title, "
            "a browser does not); `kb check --fix` links to")
    found = check_paths([doc], load_config(root))
    assert [(f.line, f.message) for f in found] == [
        (14, f"'#安装步骤（二）' names a heading of knowledge/pump.md by its title, not its "
             f"anchor: write '#安装步骤二' {rule} '#安装步骤二'"),
        (15, f"'#安装步骤(二)' names a heading of knowledge/pump.md by its title, not its "
             f"anchor: write '#安装步骤二' {rule} '#安装步骤二'"),
        (15, f"'#第一步:准备' names a heading of this document by its title, not its anchor: "
             f"write '#第一步准备' {rule} '#第一步准备'"),
        (15, "'#ｓｅｔｕｐ ｓｔｅｐｓ' names a heading of knowledge/pump.md by its title, not "
             f"its anchor: write '#ｓｅｔｕｐ-ｓｔｅｐｓ' {rule} '#ｓｅｔｕｐ-ｓｔｅｐｓ'"),
        (16, "no heading '#安装步骤（三）' in knowledge/pump.md"),  # (another heading)
        *[(17, f"'#Replacing the seal' names a heading of knowledge/pump.md by its title, not "
               f"its anchor: write '#replacing-the-seal' {rule} '#replacing-the-seal'")] * 2]
    changes, _, left = fix_paths([doc], partial(make_context, load_config(root)))
    assert doc.read_text(encoding="utf-8") == GOOD_FM + body.replace(
        "#安装步骤（二）", "#安装步骤二").replace("#安装步骤(二)", "#安装步骤二").replace(
        "#第一步:准备", "#第一步准备").replace("#ｓｅｔｕｐ　ｓｔｅｐｓ", "#ｓｅｔｕｐ-ｓｔｅｐｓ").replace(
        "#Replacing%20the%20seal", "#replacing-the-seal").replace(
        "#Replacing the seal", "#replacing-the-seal")
    assert not [c for c in changes if isinstance(c, NotFixed)]  # `#安装步骤（三）`: told, no more
    assert [f.message for f in left] == ["no heading '#安装步骤（三）' in knowledge/pump.md"]
