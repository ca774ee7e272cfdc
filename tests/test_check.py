"""kb check core: every kind of broken document gets exactly the expected findings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.check.engine import (
    CODES,
    CONTENT_CHECKS,
    check_document,
    check_paths,
    make_context,
)
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.errors import FindingsError
from kbtools.findings import Finding, finding, sort_findings, summary_line, verdict
from kbtools.markdown.parser import github_slugs, slugify
from kbtools.markdown.table_lines import count_cells
from kbtools.schemas import PACKAGE_SCHEMAS
from tests.kbfixtures import GOOD_FM

FIXTURES = Path(__file__).parent / "fixtures" / "broken"


# fixture file -> exact set of finding codes
EXPECTED: dict[str, set[str]] = {
    "ok.md": set(),
    "empty.md": {"file-empty"},
    "no-front-matter.md": {"fm-missing"},
    "unterminated-front-matter.md": {"fm-unterminated"},
    "yaml-syntax.md": {"yaml-syntax"},
    "duplicate-key.md": {"duplicate-key"},
    "wrong-type.md": {"fm-type"},
    "unknown-category.md": {"fm-unknown-category"},
    "bad-timestamp.md": {"fm-timestamp"},
    "impossible-timestamp.md": {"fm-timestamp"},
    "unknown-key.md": {"fm-unknown-key"},
    "verified-without-reviewer.md": {"fm-verified-without-reviewer"},
    "missing-required.md": {"fm-missing-key"},
    "category-schema.md": {"fm-missing-key"},
    "yaml-list.md": {"fm-not-mapping"},
    "yaml-bomb.md": {"yaml-bomb"},
    "front-matter-only.md": {"body-empty"},
    "empty-front-matter.md": {"fm-empty"},
    "absolute-path.md": {"path-absolute"},
    "windows-path.md": {"path-absolute"},
    "file-url.md": {"path-absolute"},
    "backslash.md": {"path-backslash"},
    "escapes-repo.md": {"path-escapes-repo"},
    "missing-image.md": {"path-missing"},
    "missing-doc-link.md": {"path-missing"},
    "html-image.md": {"path-missing"},
    "wrong-case.md": {"path-case"},
    "remote-image.md": {"image-remote"},
    "image-no-alt.md": {"image-no-alt"},
    "footnotes.md": {"footnote-undefined", "footnote-unused"},
    "bad-anchor.md": {"link-anchor"},
    "unbalanced-math.md": {"math-unbalanced"},
    "table-cells.md": {"table-cells"},
    "decision-overlap.md": {"decision-overlap"},
    "decision-gap.md": {"decision-gap"},
    "decision-malformed.md": {"decision-malformed"},
    "table-csv-duplicate.md": {"table-csv-duplicate"},
    "empty-link.md": {"link-empty"},
    "bad-enum.md": {"fm-value"},
    "heading-skip.md": {"heading-skip"},
}


@pytest.fixture(scope="module")
def fixture_findings() -> list[Finding]:
    return check_paths([FIXTURES], load_config(FIXTURES))


def codes_by_file(findings: list[Finding]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in findings:
        out.setdefault(f.path, set()).add(f.code)
    return out


def test_fixture_corpus_is_complete():
    on_disk = {p.name for p in FIXTURES.glob("*.md")}
    assert on_disk == set(EXPECTED)
    assert len([k for k, v in EXPECTED.items() if v]) >= 25


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_codes(name, fixture_findings):
    assert codes_by_file(fixture_findings).get(name, set()) == EXPECTED[name]


def test_every_code_is_documented(fixture_findings):
    tested = set().union(*EXPECTED.values(), *(codes for _, codes in GENERATED.values()))
    tested |= {"path-not-utf8", "path-symlink-escape", "file-too-large", "math-invalid",
               "file-unreadable", "file-not-regular"}  # the last: tests/test_hostile_files.py
    tested |= {"table-csv-name", "file-extension", "code-unclosed"}  # test_authoring_edges.py
    tested |= {"link-wikilink"}  # tests/test_wikilinks.py
    tested |= {"html-table", "obsidian-comment"}  # tests/test_editor_markdown.py
    tested |= {"html-swallows-markdown", "html-comment-unclosed"}  # test_html_swallows.py
    tested |= {"fm-tag-hash", "fm-list-joined"}  # tests/test_frontmatter_editors.py
    tested |= {"heading-no-space", "link-space"}  # test_heading_no_space.py, test_link_space.py
    tested |= {"yaml-1.1-value"}  # tests/test_yaml11_values.py
    tested |= {"image-lfs-pointer", "image-too-large", "image-format",
               "image-not-picture"}  # tests/test_assets.py
    tested |= {"file-not-shipped", "media-remote"}  # tests/test_linked_files.py
    tested |= {"path-symlink-folder", "path-outside-knowledge"}  # test_check_unreleased.py
    tested |= {"path-unicode", "path-collision", "path-windows", "path-long",
               "path-shared-name"}  # test_portable_names
    tested |= {"editor-leftover", "conflicted-copy"}  # tests/test_editor_leftovers.py
    tested |= {"table-large"}  # tests/test_editor_markdown.py
    tested |= {"table-unread", "table-text-row"}  # tests/test_table_unread.py
    tested |= {"text-bidi"}  # test_bidi_controls_are_named_where_they_disguise_text
    tested |= {"merge-conflict"}  # tests/test_merge_conflict_markers.py
    tested |= {"encoding-utf16", "file-nul"}  # tests/test_windows_files.py
    # the synonyms file and supersedes: tests/test_synonyms.py and tests/test_freshness.py
    tested |= {"synonyms-not-a-group", "synonyms-empty-term", "synonyms-term-too-long",
               "synonyms-duplicate", "synonyms-repeated", "synonyms-unreadable",
               "supersedes-missing"}
    tested |= {"dict-bad-line", "dict-unreadable", "dict-term-unused"}  # test_user_dict.py
    tested |= {"doc-drawing"}  # tests/test_vault_files.py
    assert tested <= set(CODES)
    tested |= {"markdown-too-deep"}  # tests/test_authoring_edges.py
    # guards: plug-in crashes are tested with the extension point; verification-lapsed
    # needs Git history (tests/test_verified.py)
    assert set(CODES) - tested == {"check-failed", "verification-lapsed"}


def test_an_image_without_alternative_text_is_named_where_it_is(fixture_findings):
    """`<img src>` without `alt` was shown with `alt=""` silently (a screen reader said
    nothing of the picture), as `![](x.png)` was: each is a warning at its image; an
    `alt=""` (a decoration) and an image with words are not."""
    found = sorted((f.line, f.col) for f in fixture_findings
                   if f.path.endswith("image-no-alt.md") and f.code == "image-no-alt")
    assert found == [(12, 5), (14, 11), (16, 18), (16, 59)]
    assert all(f.level == "warning" for f in fixture_findings if f.code == "image-no-alt")


def test_footnotes_without_definition_or_reference_are_named_where_written(fixture_findings):
    """`[^x]` with no `[^x]: …` was no finding, though every viewer shows it as literal
    text (in a paragraph, a table cell, a heading); a definition nothing references is a
    leftover. A `[^x]` in a code span is code, and a resolved one is a footnote."""
    found = sorted((f.line, f.col, f.level, f.code, f.message) for f in fixture_findings
                   if f.path.endswith("footnotes.md"))
    assert [(line, col, level, code) for line, col, level, code, _ in found] == [
        (12, 31, "error", "footnote-undefined"),
        (16, 8, "error", "footnote-undefined"),
        (20, 1, "warning", "footnote-unused")]
    assert "[^nope]: …" in found[0][4]
    assert "[^missing-2]" in found[1][4]
    assert "[^left] is never referenced" in found[2][4]


def test_findings_sorted_and_formatted(fixture_findings):
    keys = [f.sort_key() for f in fixture_findings]
    assert keys == sorted(keys)
    for f in fixture_findings:
        assert f.level in ("error", "warning")
        assert f.format().startswith(f"{f.path}:{f.line}:{f.col}: {f.level}: {f.code}: ")
        assert "\n" not in f.format()


def test_findings_summary_and_verdict():
    warn = Finding("a.md", 2, 1, "warning", "image-remote", "remote")
    err = Finding("a.md", 1, 1, "error", "path-missing", "missing")
    assert sort_findings([warn, err, warn]) == [err, warn]
    assert summary_line([warn], "check: 1 document") == "check: 1 document, 0 errors, 1 warning"
    assert verdict([warn], "check: 1 document") == "check: 1 document, 0 errors, 1 warning"
    with pytest.raises(FindingsError, match=r"^check: 1 document, 1 error, 1 warning$"):
        verdict([err, warn], "check: 1 document")


def test_messages_name_the_problem(fixture_findings):
    text = "\n".join(f.format() for f in fixture_findings)
    assert "unknown key 'tag'; did you mean 'tags'?" in text
    assert "did you mean 'engineering'?" in text
    assert "duplicate key 'title' (first on line 2)" in text
    assert "wrong-case.md:14:10: error: path-case:" in text
    assert "'assets/ok.png'" in text
    assert "table row has 3 cells, the header (line 12) has 2 cells" in text
    assert "verified: true needs verified_by and verified_at" in text


def test_warnings_only_for_remote_images_and_empty_links(fixture_findings):
    warnings = {f.code for f in fixture_findings if f.level == "warning"}
    assert warnings == {"image-remote", "link-empty", "decision-gap", "decision-overlap",
                        "image-no-alt", "footnote-unused", "heading-skip"}


def test_lenient_downgrades_front_matter_only(fixture_findings):
    lenient = check_paths([FIXTURES], load_config(FIXTURES), lenient=True)
    levels = {(f.path, f.code): f.level for f in lenient}
    assert levels[("yaml-bomb.md", "yaml-bomb")] == "warning"
    assert levels[("unknown-key.md", "fm-unknown-key")] == "warning"
    assert levels[("wrong-case.md", "path-case")] == "error"
    assert len(lenient) == len(fixture_findings)


def test_schema_checks_off_skips_schema_rules_only():
    found = check_paths([FIXTURES], load_config(FIXTURES), schema_checks=False)
    codes = {f.code for f in found}
    assert "fm-unknown-key" not in codes and "fm-type" not in codes
    assert {"yaml-syntax", "duplicate-key", "path-case"} <= codes


def test_parallel_matches_serial(fixture_findings):
    assert check_paths([FIXTURES], load_config(FIXTURES), jobs=2) == fixture_findings
    assert check_paths([FIXTURES], load_config(FIXTURES), jobs=None) == fixture_findings


# ---- documents generated at test time (bytes that should not live in git) -----------------

def write_repo(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "Photo.png").write_bytes(b"\x89PNG")
    return tmp_path


def codes_for(tmp_path: Path, **kwargs) -> dict[str, set[str]]:
    return codes_by_file(check_paths([tmp_path / "knowledge"], load_config(tmp_path), **kwargs))


GENERATED: dict[str, tuple[bytes, set[str]]] = {
    "binary.md": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {"file-binary"}),
    "not-utf8.md": (GOOD_FM.encode() + b"# T\n\ncaf\xe9 au lait\n", {"encoding-not-utf8"}),
    "bom.md": (b"\xef\xbb\xbf" + GOOD_FM.encode() + b"# T\n\ntext\n", {"encoding-bom"}),
    "crlf.md": ((GOOD_FM + "# T\n\ntext\n").replace("\n", "\r\n").encode(), {"encoding-crlf"}),
    "whitespace.md": (b"  \n\n\t\n", {"file-empty"}),
    "bom-only.md": (b"\xef\xbb\xbf", {"file-empty"}),
    "bom-spaces.md": ("\ufeff\r\n\u3000\u00a0\n".encode(), {"file-empty"}),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_documents(tmp_path, name):
    data, expected = GENERATED[name]
    root = write_repo(tmp_path)
    (root / "knowledge" / name).write_bytes(data)
    assert codes_for(root) == {f"knowledge/{name}": expected}


def test_missing_front_matter_says_what_this_repository_s_schemas_accept(tmp_path):
    """`fm-missing` said "no front matter block (--- ... ---)" and not what to write: it
    gives the smallest block the repository's own schemas accept (its required keys, a
    category's), which, written as given, leaves the document without findings."""
    root = write_repo(tmp_path)
    (root / "schemas" / "categories").mkdir(parents=True)
    base = json.loads((PACKAGE_SCHEMAS / "frontmatter.schema.json").read_text("utf-8"))
    base["required"] = [*base["required"], "lang", "tags"]
    base["properties"].update({key: {"type": "string"} for key in ("owner", "site", "crew")})
    (root / "schemas" / "frontmatter.schema.json").write_text(json.dumps(base), "utf-8")
    for name, required in (("sop", ["owner"]), ("report", ["site", "crew"])):
        (root / "schemas" / "categories" / f"{name}.schema.json").write_text(json.dumps(
            {"type": "object", "required": required}), "utf-8")
    doc = root / "knowledge" / "note.md"
    doc.write_text("# 操作规程\n\n先断电。\n", encoding="utf-8")
    [found] = check_paths([root / "knowledge"], load_config(root))
    assert found.code == "fm-missing"
    block = found.message.split(": ", 1)[1].split("): ", 1)[1]
    lines = block.split(" / ")
    assert lines[0] == lines[-1] == "---"
    assert [line.split(":")[0] for line in lines[1:-1]] == [
        "title", "category", "source", "author", "timestamp", "verified", "lang", "tags", "owner"]
    assert "category: sop" in lines and "lang: zh" in lines
    doc.write_text("\n".join(lines) + "\n# 操作规程\n\n先断电。\n", encoding="utf-8")
    assert check_paths([root / "knowledge"], load_config(root)) == []


def test_bom_and_crlf_are_warnings(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "crlf.md").write_bytes(GENERATED["crlf.md"][0])
    found = check_paths([root / "knowledge"], load_config(root))
    assert [f.level for f in found] == ["warning"]


def test_not_utf8_points_at_the_line(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "x.md").write_bytes(GENERATED["not-utf8.md"][0])
    [f] = check_paths([root / "knowledge"], load_config(root))
    assert (f.line, f.col) == (12, 4)


@pytest.mark.parametrize(("codec", "said", "body"), [
    ("gb18030", "GBK/GB18030", "# 赤霉病\n\n扬花期喷药，见[图片](../assets/病叶照片.png)。\n"),
    ("big5", "Big5", "# 赤黴病\n\n揚花期噴藥，見[圖片](../assets/病葉照片.png)。\n"),
])
def test_a_document_saved_in_a_chinese_windows_encoding_is_named_so_and_nothing_else(
        tmp_path, codec, said, body):
    root = write_repo(tmp_path)
    text = GOOD_FM + body
    (root / "knowledge" / "x.md").write_bytes(text.encode(codec))
    [f] = check_paths([root / "knowledge"], load_config(root))  # no garbled path-missing
    first = next(n for n, line in enumerate(text.split("\n"), 1) if not line.isascii())
    assert f.code == "encoding-not-utf8" and f.line == first
    assert f"saved as {said}" in f.message and "save it as UTF-8" in f.message


def test_five_megabyte_file(tmp_path):
    root = write_repo(tmp_path)
    big = GOOD_FM + "# Big\n\n" + ("line of text\n" * 420_000)
    (root / "knowledge" / "big.md").write_text(big)
    found = check_paths([root / "knowledge"], load_config(root))
    assert [(f.code, f.level) for f in found] == [("file-too-large", "error")]
    assert "limit is 2,097,152" in found[0].message
    (root / "knowledge" / "big.md").write_text(GOOD_FM + "# Small\n\ntext\n" * 80)
    [f] = check_paths([root / "knowledge"], load_config(root), max_bytes=1000)
    assert f.code == "file-too-large" and "limit is 1,000" in f.message
    assert check_paths([root / "knowledge"], load_config(root), max_bytes=2000) == []


def test_invalid_utf8_file_name(tmp_path):
    root = write_repo(tmp_path)
    name = os.fsdecode(b"caf\xe9.md")
    (root / "knowledge" / name).write_text(GOOD_FM + "# T\n\ntext\n")
    found = check_paths([root / "knowledge"], load_config(root))
    assert [f.code for f in found] == ["path-not-utf8"]
    found[0].format().encode("utf-8")  # printable: no lone surrogates
    assert found[0].path == "knowledge/caf\ufffd.md"


def test_symlinks_leaving_the_repo(tmp_path):
    root = write_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(b"x")
    (outside / "doc.md").write_text(GOOD_FM + "# T\n\ntext\n")
    (root / "assets" / "leak.png").symlink_to(outside / "secret.png")
    (root / "knowledge" / "linked.md").symlink_to(outside / "doc.md")
    (root / "knowledge" / "a.md").write_text(GOOD_FM + "# T\n\n![x](../assets/leak.png)\n")
    assert codes_for(root) == {"knowledge/a.md": {"path-symlink-escape"},
                               "knowledge/linked.md": {"path-symlink-escape"}}


def test_unreadable_file_named_explicitly(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "dangling.md").symlink_to(root / "knowledge" / "gone.md")
    found = check_paths([root / "knowledge" / "dangling.md"], load_config(root))
    assert [(f.path, f.code) for f in found] == [("knowledge/dangling.md", "file-unreadable")]


def test_symlink_inside_repo_is_fine(tmp_path):
    root = write_repo(tmp_path)
    (root / "assets" / "alias.png").symlink_to(root / "assets" / "Photo.png")
    (root / "knowledge" / "a.md").write_text(GOOD_FM + "# T\n\n![x](../assets/alias.png)\n")
    assert codes_for(root) == {}


def test_case_is_checked_on_every_component(tmp_path):
    root = write_repo(tmp_path)
    body = "# T\n\n![a](../Assets/Photo.png) ![b](../assets/photo.png) ![c](../assets/Photo.png)\n"
    (root / "knowledge" / "a.md").write_text(GOOD_FM + body)
    found = check_paths([root / "knowledge"], load_config(root))
    assert [(f.code, f.col) for f in found] == [("path-case", 6), ("path-case", 32)]


def test_bidi_controls_are_named_where_they_disguise_text(tmp_path):
    """Bidi overrides and isolates (Trojan Source) in a title, a heading or a file name were
    not reported: the text shows as something it is not."""
    root = write_repo(tmp_path)
    fm = GOOD_FM.replace("title: ", "title: \u202e", 1)
    assert fm != GOOD_FM
    (root / "knowledge" / "a.md").write_text(fm + "# Steps \u2066x\u2069\n\nsaid \u202dy\n")
    (root / "knowledge" / "\u202egnp.md").write_text(GOOD_FM + "# T\n")
    found = [f for f in check_paths([root / "knowledge"], load_config(root))
             if f.code == "text-bidi"]
    title_line = fm.split("\n").index(next(ln for ln in fm.split("\n") if "\u202e" in ln)) + 1
    heading = fm.count("\n") + 1
    assert [(Path(f.path).name, f.line, f.level) for f in found] == [
        ("a.md", title_line, "error"), ("a.md", heading, "error"),
        ("a.md", heading + 2, "warning"), ("\u202egnp.md", 1, "error")]
    assert "U+202E in the front matter" in found[0].message
    assert "U+2066 in a heading" in found[1].message and found[1].col == 9
    assert "in the file name" in found[3].message


def test_slugs_follow_github_rules():
    assert slugify("Token rotation (v2)") == "token-rotation-v2"
    assert slugify("4.3 液压系统压力异常") == "43-液压系统压力异常"
    assert slugify("Ａ／Ｂ 测试：步骤") == "ａｂ-测试步骤"
    assert slugify("snake_case & more") == "snake_case--more"
    assert github_slugs(["A", "A", "A-1"]) == ["a", "a-1", "a-1-1"]


def test_count_cells():
    assert count_cells("| a | b |") == 2
    assert count_cells("a | b") == 2
    assert count_cells("| a \\| b | c |") == 2
    assert count_cells("|a|") == 1


def test_check_document_api_and_content_extension_point(tmp_path):
    root = write_repo(tmp_path)
    ctx = make_context(load_config(root))
    ctx.latex_problem = None  # no formula checker: nothing to report
    src = parse_source(GOOD_FM + "# T\n\n$$ \\frac{a}{b $$\n", root / "knowledge" / "x.md",
                       "knowledge/x.md")
    assert check_document(src, ctx) == []
    ctx.latex_problem = lambda latex: "unbalanced braces" if latex.count("{") != latex.count(
        "}") else None
    [f] = check_document(src, ctx)
    assert (f.code, f.line, f.message) == ("math-invalid", 12, "unbalanced braces")

    def shout(src, scan, ctx):
        yield finding(src.rel, 1, 1, "warning", "custom-check", f"{len(scan.headings)} headings")

    def broken(src, scan, ctx):
        raise ValueError("oops")

    CONTENT_CHECKS.extend([shout, broken])
    try:
        found = check_document(src, ctx)
    finally:
        del CONTENT_CHECKS[-2:]
    assert [f.code for f in found] == ["check-failed", "custom-check", "math-invalid"]
    assert found[0].message == "check broken failed: ValueError: oops"


# ---- never a traceback ------------------------------------------------------------------

YAMLISH = st.lists(st.sampled_from(
    list("abc:-[]{}&*!|>'\"#? \n\t,.%@`1") + ["!!timestamp ", "!!binary ", "!!set ", "<<: ",
                                              "&a ", "*a", "? ", "verified: true\n"]),
    max_size=60).map("".join)
MARKDOWNISH = st.lists(st.sampled_from(
    list("#*_`[]()!<>|$\\/:.-= \n\tAb中文") + ["$$", "](", "```", "| a |", "C:\\", "../",
                                                "\n---|---\n", "<img src=", "<!-- csv: a.csv -->"]),
    max_size=120).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(front=YAMLISH, body=MARKDOWNISH)
def test_random_documents_never_raise(tmp_path, front, body):
    """Random front matter and Markdown give findings, never an exception."""
    root = tmp_path
    ctx = make_context(load_config(root))
    for text in (f"---\n{front}\n---\n{body}", body, f"---\n{front}"):
        src = parse_source(text, root / "x.md", "x.md")
        for f in check_document(src, ctx):
            assert f.level in ("error", "warning") and f.code and f.line >= 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_never_raise(tmp_path, data):
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "x.md").write_bytes(data)
    for f in check_paths([tmp_path / "x.md"], load_config(tmp_path)):
        f.format().encode("utf-8")


@pytest.mark.parametrize("front", ["!!timestamp x", "? [a]\n: 1", "a: !!binary xyz",
                                   "a: &a [*a]", "title: !!set {a}"])
def test_odd_yaml_is_a_finding(tmp_path, front):
    ctx = make_context(load_config(tmp_path))
    src = parse_source(f"---\n{front}\n---\n# T\n", tmp_path / "x.md", "x.md")
    codes = {f.code for f in check_document(src, ctx)}
    assert codes & {"yaml-syntax", "yaml-bomb", "fm-not-mapping", "fm-type"}, codes


def test_stray_dollars_are_located(tmp_path):
    root = write_repo(tmp_path)
    (root / "knowledge" / "a.md").write_text(
        GOOD_FM + "# T\n\nprice $$b$$ and `$$`\nnext x$$\n\n$$ y $$ z $$\n")
    found = check_paths([root / "knowledge"], load_config(root))
    # the stray `$$` on line 13 is unbalanced; line 15 reads as one formula holding `$$`
    assert [(f.code, f.line, f.col) for f in found] == [("math-unbalanced", 13, 7),
                                                         ("math-invalid", 15, 1)]


def test_sort_findings_is_a_total_order():
    """Findings that share path, line, col and code (several missing keys on line 1) still
    come out in one order, whatever order the checks produced them in."""
    same = [finding("a.md", 1, 1, "error", "fm-missing-key", f"missing key {k!r}")
            for k in ("title", "category", "author", "updated")]
    expected = sort_findings(same)
    assert [f.message for f in expected] == sorted(f.message for f in same)
    assert sort_findings(list(reversed(same))) == expected


@pytest.mark.parametrize(("line", "said"), [
    ("verified: yes", "verified: true (written 'yes', which YAML reads as true) needs"),
    ("verified: On   # site visit", "verified: true (written 'On', which YAML reads as true)"),
    ("verified: true", "verified: true needs"),
    ("title: No", "title: expected string, got bool (written 'No', which YAML reads as "
                  "false; quote it, \"No\", to keep the word)"),
    ("urgency: off", "(written 'off', which YAML reads as false; quote it"),
])
def test_a_yaml_boolean_is_named_as_the_author_wrote_it(tmp_path, line, said):
    """`verified: yes` said "verified: true needs verified_by": words the author never wrote."""
    ctx = make_context(load_config(tmp_path))
    text = f"---\ntitle: T\n{line}\n---\n# T\n".replace("title: T\ntitle", "title")
    src = parse_source(text, tmp_path / "x.md", "x.md")
    found = [f for f in check_document(src, ctx) if said in f.message]
    assert len(found) == 1 and found[0].line in (2, 3), [f.message for f in check_document(src, ctx)]
