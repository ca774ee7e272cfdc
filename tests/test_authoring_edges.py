"""Authoring edge cases where `kb check`, `kb build` and `kb chunks` must agree: `<` and `>`
in text, CSV names, absolute and reference links under --fix, misnamed `.MD` files, YAML
keys that YAML converts, symlinked documents under --fix, and files `kb chunks` may not read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.engine import check_document, check_paths, make_context
from kbtools.check.fix import NotFixed, fix_results
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import MAX_YAML_NODES, iter_documents, load_yaml, parse_source
from kbtools.docfiles import find_markdown
from kbtools.errors import FindingsError, RenderError
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.render.table_csv import CsvNames, render_tables, unsafe_name
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "knowledge" / "crops").mkdir()
    (tmp_path / "knowledge" / "crops" / "wheat-scab.md").write_text(
        GOOD_FM + "# 小麦赤霉病\n\n## 1. 识别要点\n\n穗部变褐。\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


def doc(rel: str, body: str, text: str | None = None):
    return parse_source(text if text is not None else GOOD_FM + body, Path("/r") / rel, rel)


# --- 1. `<` and `>` of text and code spans are text, not tags ---------------------------

LT_BODY = ("# 标题\n\n## 使用 `Vec<T>` 类型\n\n## 比较 a < b > c\n\n## 强调 <em>这里</em>\n\n"
           "见 [x](#使用-vect-类型)、[y](#比较-a--b--c) 和 [z](#强调-这里)\n\n"
           "| 条件 | 措施 |\n|---|---|\n| `Vec<T>` | 可以喷药，气温<10℃或>30℃时暂停 |\n"
           "| a<br>b | &lt;b&gt; |\n")


def test_lt_and_gt_are_kept_in_headings_cells_rows_and_anchors():
    src = doc("knowledge/t/lt.md", LT_BODY)
    tree = parse(src)
    (table,) = tree.tables()
    assert table.rows[0] == ("Vec<T>", "可以喷药，气温<10℃或>30℃时暂停")
    assert table.rows[1] == ("a b", "<b>")  # a <br> is a space; an entity is text
    headings = [h for _, h in scan(src.body, src.body_line).headings]
    assert headings == ["标题", "使用 Vec<T> 类型", "比较 a < b > c", "强调 这里"]  # tags dropped
    chunks = chunk_document(src, ChunkConfig())
    rows = [c for c in chunks if c.kind == "table_row"]
    assert "措施: 可以喷药，气温<10℃或>30℃时暂停" in rows[0].text
    assert rows[0].heading_path[-1] == "强调 这里"
    assert ("标题", "比较 a < b > c") in [sec.heading_path for sec in tree.sections()]
    # GitHub's slugs drop `<` and `>`: the anchors links use are found
    assert not [f for f in check_document(src, _ctx(Path("/r"))) if f.code == "link-anchor"]


def _ctx(root: Path):
    return make_context(load_config(root))


# --- 2. one rule for CSV names: check reports exactly what the build refuses --------------

NAMES = ["杀菌剂（用量）.csv", "戊唑·咪鲜胺 用量.csv", "dosage", "Dosage-2.CSV", "../../evil.csv",
         "a/b.csv", "a\\b.csv", ".hidden.csv", "con.csv", "NUL.txt.csv", "a:b.csv", "a?.csv",
         "a\u202eb.csv", "x" * 260 + ".csv", ".csv"]


def table_doc(name: str) -> str:
    return GOOD_FM + f"# T\n\n<!-- csv: {name} -->\n| a | b |\n|---|---|\n| 1 | 2 |\n"


@pytest.mark.parametrize("name", NAMES)
def test_check_reports_exactly_the_csv_names_the_build_refuses(name, tmp_path):
    src = doc("knowledge/t/n.md", "", table_doc(name))
    tables = [(src.rel, t) for t in parse(src).tables()]
    try:
        render_tables(tables, tmp_path / "tables", CsvNames(tables))
        refused = None
    except RenderError as exc:
        refused = exc.message
    found = [f for f in check_document(src, _ctx(tmp_path)) if f.code == "table-csv-name"]
    assert [f.message for f in found] == ([refused] if refused else [])
    assert all(f.line == FM_LINES + 3 for f in found)  # the annotation's line
    assert list(tmp_path.rglob("evil.csv")) == []
    if name.startswith(("杀菌剂", "戊唑")):  # Chinese punctuation is a plain file name
        assert refused is None and (tmp_path / "tables" / name).is_file()


def test_an_annotation_not_before_a_table_is_not_a_csv_name():
    src = doc("knowledge/t/n.md", "# T\n\n<!-- csv: a/b -->\n\ntext\n\n| a |\n|---|\n| 1 |\n")
    assert not [f for f in check_document(src, _ctx(Path("/r"))) if f.code.startswith("table-csv")]
    assert [t.annotations for t in parse(src).tables()] == [{}]


def test_csv_names_that_are_one_file_once_csv_is_added_are_duplicates(repo):
    (repo / "knowledge" / "t" / "a.md").write_text(table_doc("data"), encoding="utf-8")
    (repo / "knowledge" / "t" / "b.md").write_text(
        table_doc("Data.csv").replace("<!-- csv:", "<!--\nnote\n-->\n<!-- CSV:"), encoding="utf-8")
    found = [f for f in check_paths([repo / "knowledge"], load_config(repo))
             if f.code == "table-csv-duplicate"]
    assert [(f.path, f.line) for f in found] == [("knowledge/t/b.md", FM_LINES + 6)]
    assert "'Data.csv' is already used at knowledge/t/a.md:" in found[0].message
    with pytest.raises(FindingsError, match="table-csv-duplicate"):
        build(load_config(repo), BuildOptions(progress=False))


def test_the_build_refuses_an_unsafe_csv_name_at_the_check_stage(repo):
    (repo / "knowledge" / "t" / "a.md").write_text(table_doc("../../evil.csv"), encoding="utf-8")
    with pytest.raises(FindingsError, match=r"knowledge/t/a.md:\d+:1: error: table-csv-name"):
        build(load_config(repo), BuildOptions(progress=False))


# --- 3. and 4. --fix keeps anchors and edits reference definitions ------------------------

def test_fix_of_an_absolute_link_keeps_its_anchor_and_checks_it(repo):
    """The anchor is kept when it names a heading; one naming none, and no heading the
    one closest, is dropped (`kbtools.check.anchors.settle`), never written again."""
    target = (repo / "knowledge" / "crops" / "wheat-scab.md").as_posix()
    page = repo / "knowledge" / "t" / "abs.md"
    page.write_text(GOOD_FM + f"# T\n\n[要点]({target}#1-识别要点) [坏]({target}#nope)\n",
                    encoding="utf-8")
    result = check()
    assert "link-anchor: no heading '#nope' in knowledge/crops/wheat-scab.md" in result.stdout
    assert "use '../crops/wheat-scab.md#1-识别要点'" in result.stdout
    assert "without an anchor" in check("--fix").stderr
    assert page.read_text(encoding="utf-8").endswith(
        "[要点](../crops/wheat-scab.md#1-识别要点) [坏](../crops/wheat-scab.md)\n")


def test_reference_definitions_are_reported_and_fixed_where_they_are_written(repo):
    page = repo / "knowledge" / "t" / "ref.md"
    page.write_text(GOOD_FM + "# T\n\n看 [文档][doc] 和 [又][doc]\n第二行\n\n"
                    "[doc]: ../crops/Wheat-Scab.md#1-识别要点\n", encoding="utf-8")
    result = check()
    line = FM_LINES + 6
    assert result.stdout.splitlines() == [
        f"knowledge/t/ref.md:{line}:8: error: path-case: '../crops/Wheat-Scab.md#1-识别要点' "
        "differs in case from the file on disk: '../crops/wheat-scab.md'"]
    check("--fix")
    assert page.read_text(encoding="utf-8").endswith(
        "[doc]: ../crops/wheat-scab.md#1-识别要点\n")
    assert check().exit_code == 0


# --- 5. `.MD`: reported by check, refused by the build, never silently dropped ------------

def test_an_upper_case_extension_is_reported_and_not_indexed(repo):
    misnamed = repo / "knowledge" / "t" / "Upper.MD"
    misnamed.write_text(GOOD_FM + "# Up\n\ntext\n", encoding="utf-8")
    assert misnamed in find_markdown([repo / "knowledge"])
    for args in ((), ("knowledge/t/Upper.MD",)):
        result = check(*args)
        assert result.exit_code == 1
        assert ("knowledge/t/Upper.MD:1:1: error: file-extension: the extension '.MD' is not "
                "'.md'") in result.stdout
    assert [d.rel for d in iter_documents(repo, repo / "knowledge")] == [
        "knowledge/crops/wheat-scab.md"]
    with pytest.raises(FindingsError, match="Upper.MD:1:1: error: file-extension"):
        build(load_config(repo), BuildOptions(progress=False))


@pytest.mark.parametrize("name", ["guide.markdown", "Notes.Markdown", "x.mdown", "y.mkd",
                                  "z.MKDN", "w.mdwn"])
def test_another_markdown_extension_is_reported_and_not_indexed(repo, name):
    """`guide.markdown` (an editor's default elsewhere) was neither checked nor indexed, and
    nothing said so: the author's document silently never reached a device."""
    misnamed = repo / "knowledge" / "t" / name
    misnamed.write_text(GOOD_FM + "# Up\n\ntext\n", encoding="utf-8")
    (repo / "knowledge" / "t" / "clip.mp4").write_bytes(b"\0\0")  # not Markdown: not ours
    assert misnamed in find_markdown([repo / "knowledge"])
    result = check()
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"knowledge/t/{name}:1:1: error: file-extension: the extension "
        f"'{misnamed.suffix}' is not '.md': the document is not read or indexed (rename it "
        f"to '{misnamed.stem}.md')"]
    assert [d.rel for d in iter_documents(repo, repo / "knowledge")] == [
        "knowledge/crops/wheat-scab.md"]


# --- 6. front-matter keys YAML converts are named as written, on their line ---------------

def test_converted_keys_are_reported_as_written_on_their_own_line():
    text = GOOD_FM.replace("---\n", "", 1).rstrip("-\n")
    src = doc("knowledge/t/y.md", "", "---\n" + text + "\nno: 3\nyes: 1\nnull: 2\n0x1: 4\n---\n# T\n\nx\n")
    found = [(f.line, f.message) for f in check_document(src, _ctx(Path("/r")))
             if f.code == "fm-unknown-key"]
    first = FM_LINES  # the first added key's line
    assert [(line, msg.split(";")[0]) for line, msg in found] == [
        (first, "unknown key 'no'"), (first + 1, "unknown key 'yes'"),
        (first + 2, "unknown key 'null'"), (first + 3, "unknown key '0x1'")]


def test_written_keys_keep_merges_and_duplicates():
    data, lines, errors = load_yaml("b: &b {x: 1}\n<<: {title: t, no: 2}\ntitle: u\n", 2)
    assert (data, errors) == ({"title": "u", "no": 2, "b": {"x": 1}}, [])
    assert lines == {"title": 4, "no": 3, "b": 2}
    _, _, errors = load_yaml("a: 1\n\"a\": 2\n", 2)
    assert [(e.code, e.line) for e in errors] == [("duplicate-key", 3)]



def test_front_matter_over_the_node_limit_names_the_limit_not_an_alias_bomb():
    many = "".join(f"key{i}: v{i}\n" for i in range(MAX_YAML_NODES))  # no alias anywhere
    _, _, errors = load_yaml(many, 2)
    assert [(e.code, e.line, e.message) for e in errors] == [
        ("yaml-bomb", 2, f"front matter has more than {MAX_YAML_NODES:,} YAML nodes (keys, "
                         "values and list items, an alias counted at each use)")]
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcde", "bcdef", strict=True))
    assert [e.code for e in load_yaml(bomb, 2)[2]] == ["yaml-bomb"]
    _, _, errors = load_yaml("a: [1, 2\n", 2)
    assert [e.code for e in errors] == ["yaml-syntax"]


@pytest.mark.parametrize("body, line", [
    ("# T\n\n" + ">" * 20 + " deep\n", 3),  # 20 quotes and the paragraph in them
    ("# T\n\n" + "".join("  " * i + f"- item {i}\n" for i in range(1000)), 12),
    ("# T\n\n" + "".join(">" * (i + 1) + f" quote {i}\n" for i in range(100)), 22),
])
def test_markdown_nested_deeper_than_it_is_read_is_an_error_at_its_line(body, line):
    # markdown-it drops what nests deeper than its maxNesting: the served page lost it
    src = doc("knowledge/t/deep.md", body)
    found = [(f.code, f.line) for f in check_document(src, _ctx(Path("/r"))) if f.level == "error"]
    assert found == [("markdown-too-deep", FM_LINES + line)]
    shallow = doc("knowledge/t/ok.md", "# T\n\n" + ">" * 19 + " deep\n\n"
                  + "".join("  " * i + f"- item {i}\n" for i in range(9)))
    assert [f for f in check_document(shallow, _ctx(Path("/r"))) if f.level == "error"] == []

# --- 7. --fix on a symlinked document edits its target, never the link --------------------

def test_fix_on_a_symlinked_document_edits_the_target_and_keeps_the_link(repo):
    (repo / "knowledge" / "t2").mkdir()
    real = repo / "knowledge" / "t2" / "real.md"
    real.write_text(GOOD_FM + "# T\n\n[x](../crops/Wheat-Scab.md)\n", encoding="utf-8")
    link = repo / "knowledge" / "t" / "link.md"
    link.symlink_to("../t2/real.md")
    result = check("--fix", "knowledge/t/link.md")
    assert "fixed: ../crops/Wheat-Scab.md -> ../crops/wheat-scab.md" in result.stderr
    assert link.is_symlink() and os.readlink(link) == "../t2/real.md"
    assert real.read_text(encoding="utf-8").endswith("[x](../crops/wheat-scab.md)\n")


def test_fix_never_writes_through_a_link_leading_outside_the_repository(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "real.md"
    outside.write_text(GOOD_FM + "# T\n\n[x](../crops/Wheat-Scab.md)\n", encoding="utf-8")
    link = repo / "knowledge" / "t" / "link.md"
    link.write_text(outside.read_text(encoding="utf-8"), encoding="utf-8")
    ctx = make_context(load_config(repo))
    from kbtools.check.engine import check_file

    result = check_file(link, ctx)  # checked while a regular file …
    assert result.edits
    link.unlink()
    link.symlink_to(outside)  # … swapped for a link before the fix
    (change,) = fix_results([result], repo)
    assert isinstance(change, NotFixed) and "\n" not in change.format()
    assert change.format().startswith("knowledge/t/link.md:1:1: not fixed: a symlink leading")
    assert link.is_symlink() and "Wheat-Scab" in outside.read_text(encoding="utf-8")


# --- 8. `kb chunks` reads a file as `kb check` does --------------------------------------

def test_kb_chunks_refuses_what_kb_check_refuses(repo, tmp_path_factory):
    secret = tmp_path_factory.mktemp("outside") / "secret.md"
    secret.write_text(GOOD_FM + "# Secret\n\nroot:x:0:0\n", encoding="utf-8")
    t = repo / "knowledge" / "t"
    (t / "leak.md").symlink_to(secret)
    os.mkfifo(t / "fifo.md")
    (t / "dir.md").mkdir()
    (t / "Upper.MD").write_text(GOOD_FM + "# Up\n\nx\n", encoding="utf-8")
    (t / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (t / "notepad.md").write_bytes(b"\xff\xfe#\x00 \x00x\x00\n\x00")  # UTF-16
    expected = {"blob.md": "file-binary: file contains NUL bytes: binary data, not Markdown",
                "notepad.md": "encoding-utf16: file is UTF-16 text",
                "leak.md": "path-symlink-escape: document is a symlink leading outside",
                "fifo.md": "file-not-regular: a FIFO (named pipe), not a regular file",
                "dir.md": "file-not-regular: a directory, not a regular file",
                "Upper.MD": "file-extension: the extension '.MD' is not '.md'"}
    for name, message in expected.items():
        result = CliRunner().invoke(main, ["chunks", f"knowledge/t/{name}"])
        assert result.exit_code == 1, (name, result.output)
        assert result.stderr.startswith(f"kb: error: knowledge/t/{name}: {message}"), result.stderr
        assert "root:x" not in result.output and "Traceback" not in result.output
        assert "\x00" not in result.output
    result = CliRunner().invoke(main, ["chunks", "knowledge/t/none.md"])
    assert result.exit_code == 2 and "no such file or directory" in result.stderr
    (t / "inside.md").symlink_to("../crops/wheat-scab.md")
    assert CliRunner().invoke(main, ["chunks", "knowledge/t/inside.md"]).exit_code == 0


def test_unsafe_name_is_one_line_for_any_name():
    for name in NAMES:
        message = unsafe_name(name if name.lower().endswith(".csv") else name + ".csv")
        assert message is None or "\n" not in message


# --- a code fence never closed ----------------------------------------------------------

@pytest.mark.parametrize(("body", "expected"), [
    ("# 总\n\n```bash\nls\n\n## 二\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", [(3, "```")]),
    ("# 总\n\n~~~~\nx\n~~~\n", [(3, "~~~~")]),  # a shorter fence does not close it
    ("# 总\n\n```\nx\n```\n\n## 二\n", []),
    ("# 总\n\n````\nx\n```\n````\n", []),
    ("# 总\n\n> ```\n> x\n> ```\n", []),  # closed inside its quote
    ("# 总\n\n- a\n\n  ```\n  x\n\n## 二\n\n正文\n", []),  # its list item ends it
    ("# 总\n\n```\nx\n   ```   \n\n\n", []),
])
def test_a_code_fence_that_runs_to_the_end_is_reported(body, expected):
    """Valid Markdown, but every heading and table after an unclosed fence became code."""
    got = scan(body, 10).unclosed_fences
    assert got == [(line + 9, marker) for line, marker in expected]


def test_check_warns_of_an_unclosed_fence_at_its_line(repo):
    (repo / "knowledge" / "t" / "f.md").write_text(
        GOOD_FM + "# 总\n\n```bash\nls\n\n## 二\n", encoding="utf-8")
    res = check("knowledge/t/f.md")
    assert res.exit_code == 0, res.output
    assert f"f.md:{FM_LINES + 3}:1: warning: code-unclosed" in res.output
