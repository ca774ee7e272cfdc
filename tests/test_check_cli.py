"""`kb check` on the command line: output format, exit codes, --json, --fix, error paths."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.corpus import MIN_MAX_BYTES
from tests.kbfixtures import GOOD_FM, REPO

FIXTURES = Path(__file__).parent / "fixtures" / "broken"
FM = GOOD_FM


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "sub").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "Leaf.png").write_bytes(b"\x89PNG")
    (tmp_path / "knowledge" / "good.md").write_text(FM + "# Good\n\n## Steps\n\nText.\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    if any(str(FIXTURES) in a for a in args):
        args = ("--no-cache", *args)  # never write a cache into the source tree
    return CliRunner().invoke(main, ["check", *args])


def test_clean_repo_exits_zero(repo):
    result = run()
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "kb check: 1 document, 0 errors, 0 warnings" in result.stderr


def test_the_builds_copies_under_dist_are_not_checked_as_documents(repo):
    copy = repo / "dist" / "data" / "source" / "knowledge" / "good.md"
    copy.parent.mkdir(parents=True)
    copy.write_text((repo / "knowledge" / "good.md").read_text() + "[gone](missing.md)\n")
    result = run(".")  # the kb root: knowledge/ and the build's output beside it
    assert result.exit_code == 0, result.output
    assert "kb check: 1 document, 0 errors" in result.stderr
    result = run("dist/data/source")  # a folder inside dist/ is checked when asked for
    assert result.exit_code == 1 and "missing.md" in result.stdout


def test_fixture_corpus_exits_one_with_one_line_per_finding():
    result = run(str(FIXTURES))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) >= 30
    for line in lines:
        path, ln, col, level, code, message = line.split(":", 5)
        assert path.endswith(".md") and int(ln) >= 1 and int(col) >= 1
        assert level.strip() in ("error", "warning") and code.strip() and message.strip()
    assert lines == sorted(lines, key=lambda s: (s.split(":")[0], int(s.split(":")[1]),
                                                int(s.split(":")[2]), s.split(":")[4]))
    assert "Traceback" not in result.output
    assert "kb: error: check: 40 documents" in result.stderr


def test_json_output_has_exactly_six_fields():
    result = run("--json", str(FIXTURES))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert len(data) >= 30
    for item in data:
        assert set(item) == {"path", "line", "col", "level", "code", "message"}
    # named from where kb check runs, as linters do (the folder checked is below it)
    assert {"path": Path(os.path.relpath(FIXTURES / "wrong-type.md")).as_posix(), "line": 8, "col": 1, "level": "error", "code": "fm-type",
            "message": "verified: expected boolean, got str ('yes' is text to YAML, not a boolean: write verified: true)"} in data


def test_json_clean_is_empty_list(repo):
    result = run("--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_warnings_alone_exit_zero(repo):
    (repo / "knowledge" / "w.md").write_text(FM + "# W\n\n![x](https://example.org/x.png)\n")
    result = run()
    assert result.exit_code == 0
    assert result.stdout.startswith("knowledge/w.md:12:6: warning: image-remote:")


def test_fix_rewrites_mechanical_paths(repo):
    doc = repo / "knowledge" / "sub" / "fixme.md"
    body = (f"# Fix\n\n![a]({repo}/assets/Leaf.png) ![b](..\\..\\assets\\Leaf.png)\n"
            "![c](../../assets/leaf.png) [d](../good.md#Steps) [e](../GOOD.md#steps)\n"
            "![f](C:\\Users\\bob\\leaf.png)\n")
    doc.write_bytes((FM + body).replace("\n", "\r\n").encode())
    result = run("--fix")
    assert result.exit_code == 1  # the Windows path and the bad anchor need a human
    text = doc.read_bytes().decode()
    assert "\r" not in text  # written with LF (`encoding-crlf` mended)
    assert "![a](../../assets/Leaf.png) ![b](../../assets/Leaf.png)" in text
    assert "![c](../../assets/Leaf.png)" in text and "[e](../good.md#steps)" in text
    assert "C:\\Users\\bob\\leaf.png" in text
    assert "knowledge/sub/fixme.md:12:6: fixed:" in result.stderr
    assert result.stderr.count("fixed:") == 5  # the 4 paths, the line endings
    codes = [line.split(": ")[2] for line in result.stdout.splitlines()]
    assert sorted(codes) == ["link-anchor", "path-absolute"]
    assert run("--fix").stderr.count("fixed:") == 0  # idempotent


def test_fix_then_clean_exits_zero(repo):
    doc = repo / "knowledge" / "a.md"
    doc.write_text(FM + "# A\n\n![see ../assets/LEAF.PNG](../assets/LEAF.PNG)\n"
                   "[b](..\\knowledge\\good.md)\n")
    assert run().exit_code == 1
    result = run("--fix", "knowledge/a.md")
    assert result.exit_code == 0, result.output
    assert "![see ../assets/LEAF.PNG](../assets/Leaf.png)" in doc.read_text()
    assert "[b](../knowledge/good.md)" in doc.read_text()


def test_fix_prints_at_most_twenty_fixes_of_a_file_and_json_lists_every_one(repo):
    """`--fix` printed one line per change, unbounded: a pasted export with 45 Windows
    paths printed 45 `fixed:` lines (3,000 paths, 3,000), burying the findings after them,
    while the report of findings shows 20 of one code in one file. Now at most 20 fixes of
    a file, then one line counting the rest; with --json every change is still listed."""
    doc = repo / "knowledge" / "病害" / "稻瘟病.md"
    doc.parent.mkdir()
    links = "".join(f"![图{n}](..\\..\\assets\\Leaf.png)\n" for n in range(45))
    doc.write_text(FM + "# 稻瘟病\n\n" + links + "[b](..\\good.md)\n", encoding="utf-8")
    (repo / "knowledge" / "b.md").write_text(FM + "# B\n\n[g](.\\good.md)\n",
                                              encoding="utf-8")
    before = doc.read_bytes(), (repo / "knowledge" / "b.md").read_bytes()
    result = run("--fix")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    said = [x for x in lines if x.startswith("knowledge/病害/稻瘟病.md:")]
    assert len(said) == 20 and all(": fixed: " in x for x in said)
    assert "… and 26 more fixes in knowledge/病害/稻瘟病.md (--json lists every one)" in lines
    assert sum(x.startswith("knowledge/b.md:") for x in lines) == 1
    assert "(../../assets/Leaf.png)" in doc.read_text(encoding="utf-8")
    assert "\\" not in doc.read_text(encoding="utf-8")
    doc.write_bytes(before[0])
    (repo / "knowledge" / "b.md").write_bytes(before[1])
    result = run("--fix", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert result.stderr.count(": fixed: ") == 47 and "more fixes" not in result.stderr


def test_a_path_fix_never_keeps_an_anchor_naming_no_heading(repo):
    """`path-case`, `path-backslash` and `path-absolute` fixes kept the link's `#anchor` as
    written, so the next check flagged what the fix wrote (`link-anchor`): now the fix
    writes the one closest heading, else drops the anchor, and the `fixed:` line says so."""
    (repo / "knowledge" / "steps.md").write_text(FM + "# Steps\n\n## Step 1\n\n## Step 2\n")
    doc = repo / "knowledge" / "sub" / "links.md"
    doc.write_text(FM + "# Links\n\n[a](../GOOD.md#stepz) [b](..\\steps.md#step-3) "
                   "[c](/knowledge/good.md?v=1#Steps) [d](../Steps.md#step-2)\n"
                   f"[e]({repo}/knowledge/steps.md#%E6%B2%A1%E6%9C%89)\n")
    line = FM.count("\n") + 3
    before = run()
    assert sorted(row.split(": ")[2] for row in before.stdout.splitlines()) == [
        "link-anchor", "link-anchor", "link-anchor", "link-anchor", "path-absolute",
        "path-absolute", "path-backslash", "path-case", "path-case"]
    result = run("--fix")
    assert result.exit_code == 0, result.output
    assert doc.read_text().split("---\n", 2)[2] == (
        "# Links\n\n[a](../good.md#steps) [b](../steps.md) "
        "[c](../good.md?v=1#steps) [d](../steps.md#step-2)\n[e](../steps.md)\n")
    fixed = [row.split(": fixed: ")[1] for row in result.stderr.splitlines() if ": fixed: " in row]
    assert fixed == [
        "../GOOD.md#stepz -> ../good.md#steps (no heading '#stepz' in knowledge/good.md; "
        "linked to '#steps', the one closest heading)",
        "..\\steps.md#step-3 -> ../steps.md (no heading '#step-3' in knowledge/steps.md, "
        "and no heading is the one closest: linked to the document, without an anchor)",
        "/knowledge/good.md?v=1#Steps -> ../good.md?v=1#steps (no heading '#Steps' in "
        "knowledge/good.md; linked to '#steps', the one closest heading)",
        "../Steps.md#step-2 -> ../steps.md#step-2",
        f"{repo}/knowledge/steps.md#%E6%B2%A1%E6%9C%89 -> ../steps.md (no heading '#没有' in "
        "knowledge/steps.md, and no heading is the one closest: linked to the document, "
        "without an anchor)"]
    assert f"knowledge/sub/links.md:{line}:5: fixed:" in result.stderr
    again = run()
    assert again.exit_code == 0 and again.stdout == "", again.stdout


def _messages(*args: str) -> dict[tuple[str, str], str]:
    """`kb check`'s findings, by `path:line:col` and code (the results cache on)."""
    result = run(*args)
    return {(row.split(": ")[0], row.split(": ")[2]): row.split(": ", 3)[3]
            for row in result.stdout.splitlines()}


def test_path_absolute_says_what_the_fix_writes_and_follows_the_target(repo):
    """`path-absolute` said "use '…#anchor'" with the anchor as written (and a space
    unencoded), cached with its document, while `--fix` writes the closest heading or none
    (and `%20`): now the message is what the fix writes, made once the target's headings are
    read, so a heading added to the target alone (the cache on) changes it."""
    (repo / "knowledge" / "steps.md").write_text(FM + "# Steps\n\n## Step 1\n\n## Step 2\n")
    (repo / "knowledge" / "my notes.md").write_text(FM + "# Notes\n\n## Steps\n")
    doc = repo / "knowledge" / "links.md"
    doc.write_text(FM + "# Links\n\n[a](/knowledge/steps.md#Step-2) "
                   "[b](/knowledge/steps.md?v=1#step-3) [c](/knowledge/good.md#stepz) "
                   "[d](</knowledge/my notes.md#step>)\n")
    line = FM.count("\n") + 3
    said = {col: _messages()[(f"knowledge/links.md:{line}:{col}", "path-absolute")]
            for col in (5, 37, 73, 104)}
    uses = {col: m.split(": use ")[1] for col, m in said.items()}
    assert uses == {5: "'steps.md#step-2'", 37: "'steps.md?v=1'", 73: "'good.md#steps'",
                    104: "'my%20notes.md#steps'"}
    (repo / "knowledge" / "steps.md").write_text(FM + "# Steps\n\n## Step 1\n\n## Step 3\n")
    again = _messages()
    assert again[(f"knowledge/links.md:{line}:37", "path-absolute")].endswith(
        ": use 'steps.md?v=1#step-3'")
    assert again[(f"knowledge/links.md:{line}:5", "path-absolute")].endswith(
        ": use 'steps.md'")
    assert again == _messages("--no-cache")
    result = run("--fix")
    assert result.exit_code == 0, result.output
    written = [row.split(" -> ")[1].split(" (")[0] for row in result.stderr.splitlines()
               if ": fixed: " in row]
    assert written == ["steps.md", "steps.md?v=1#step-3", "good.md#steps",
                       "my%20notes.md#steps"]
    assert [m.split(": use ")[1] for m in again.values() if ": use " in m] == \
        [repr(w) for w in written]
    assert run().stdout == ""


def test_link_anchor_names_the_one_closest_heading_as_the_fix_does(repo):
    """`link-anchor`'s "did you mean" named the first close heading even when two were as
    close, while `--fix` writes a heading only when exactly one is closest: now a tie names
    the tied headings, and a link a path fix rewrites says what the fix writes."""
    (repo / "knowledge" / "steps.md").write_text(FM + "# Steps\n\n## Step 1\n\n## Step 2\n")
    (repo / "knowledge" / "plain.md").write_text(FM + "# Plain\n\n[x](steps.md#step-3)\n")
    doc = repo / "knowledge" / "links.md"
    doc.write_text(FM + "# Links\n\n[y](Steps.md#step-3) [z](Steps.md#stepz-1)\n")
    line = FM.count("\n") + 3
    found = _messages()
    assert found[(f"knowledge/plain.md:{line}:5", "link-anchor")] == (
        "no heading '#step-3' in knowledge/steps.md; no one heading is the closest: "
        "'#step-1' or '#step-2'?")
    assert found[(f"knowledge/links.md:{line}:5", "link-anchor")] == (
        "no heading '#step-3' in knowledge/steps.md; no one heading is the closest: "
        "'#step-1' or '#step-2'?; `kb check --fix` drops the anchor")
    assert found[(f"knowledge/links.md:{line}:26", "link-anchor")] == (
        "no heading '#stepz-1' in knowledge/steps.md; did you mean '#step-1'?; "
        "`kb check --fix` links to '#step-1'")
    result = run("--fix")
    assert result.exit_code == 1, result.output  # the plain link is no fix's to change
    assert doc.read_text().endswith("[y](steps.md) [z](steps.md#step-1)\n")
    assert list(_messages()) == [(f"knowledge/plain.md:{line}:5", "link-anchor")]


def test_missing_path_is_usage_error(repo):
    result = run("nope.md")
    assert result.exit_code == 2
    assert "no such file or directory: nope.md" in result.stderr


def test_no_markdown_found(repo):
    (repo / "empty").mkdir()
    result = run("empty")
    assert result.exit_code == 1
    assert "no Markdown documents found in: empty" in result.stderr


@pytest.mark.parametrize("args", [(), ("knowledge",), ("--json",)])
def test_a_new_knowledge_base_without_documents_passes_saying_what_to_do(repo, args):
    """A newcomer's first `kb check` after removing kb init's example (or in a folder they
    made): the knowledge folder is empty, nothing in it is wrong, and `kb build` makes an
    empty release of it. It exited 1, "no Markdown documents found in: /abs/knowledge",
    failing CI on an empty repository and printing no JSON."""
    for doc in (repo / "knowledge").rglob("*.md"):
        doc.unlink()
    (repo / "knowledge" / "笔记.docx").write_bytes(b"PK\x03\x04")  # nothing kb reads
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "kb check: no document in knowledge/ yet: write one there (a .md file that starts "
        "with front matter, like the example kb init writes), or run kb draft new "
        "--category CATEGORY --title TITLE",
        "kb check: 0 documents, 0 errors, 0 warnings"]
    assert result.stdout == ("[]\n" if "--json" in args else "")


def test_a_first_kb_check_outside_any_knowledge_base_names_kb_init(tmp_path, monkeypatch):
    """A newcomer's very first `kb check`, in a folder of their own: it said where to run kb,
    not how to make the knowledge base it looked for."""
    monkeypatch.chdir(tmp_path)
    result = run()
    assert result.exit_code == 2
    assert result.stderr.rstrip("\n").endswith("none yet? `kb init .` makes one here")


def test_missing_knowledge_folder(tmp_path, monkeypatch):
    (tmp_path / "kb.toml").write_text('[paths]\nknowledge = "docs"\n')
    monkeypatch.chdir(tmp_path)
    result = run()
    assert result.exit_code == 1
    assert result.stderr.startswith("kb: error: kb.toml:2: paths.knowledge: "
                                    "the knowledge folder 'docs' does not exist and no "
                                    "commit ever held it"), result.stderr


def test_bad_config_is_reported(repo):
    (repo / "kb.toml").write_text("[paths\n")
    result = run()
    assert result.exit_code == 1
    assert "kb.toml:1: cannot parse" in result.stderr


@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("data,line,message", [
    (b'[paths]\nknowledge = "knowledge"\n\n[chunk\n', 4,
     "cannot parse: Expected ']' at the end of a table declaration (column 7)"),
    (b'[paths]\nknowledge = "knowledge\n', 2, "cannot parse: Illegal character '\\n' (column 23)"),
    (b'[paths]\nknowledge = [\n', 2, "cannot parse: Invalid value (at the end of the file)"),
    (b'[paths]\n# caf\xe9\n', 2, "cannot parse: not UTF-8 (byte 0xe9)"),
])
def test_a_kb_toml_syntax_error_names_its_line(repo, command, data, line, message):
    """A kb.toml that is not TOML read `kb.toml: cannot parse: … (at line 4, column 7)`,
    not the `FILE:LINE:` form of every other error that CI annotations and editors read."""
    (repo / "kb.toml").write_bytes(data)
    result = CliRunner().invoke(main, [command])
    assert result.exit_code == 1
    assert result.stderr == f"kb: error: kb.toml:{line}: {message}\n"


@pytest.mark.parametrize("toml,line,message", [
    ('[paths]\nknowledge = "knowledge"\n\n[check]\n# the limit\nmax_bytes = "2 MB"\n', 6,
     "check.max_bytes: '2 MB' is not of type 'integer'"),
    ('check.max_bytes = 10\n', 1, "check.max_bytes: 10 is less than the minimum of 1024"),
    ('[embedding]\nmodel = 5\n', 2, "embedding.model: 5 is not of type 'string'"),
])
def test_a_wrong_setting_names_its_kb_toml_line(repo, toml, line, message):
    """A kb.toml value of the wrong type was reported as `kb.toml: check.max_bytes: …`: the
    file, but not the line CI annotations and editors jump to."""
    (repo / "kb.toml").write_text(toml)
    result = run()
    assert result.exit_code == 1
    assert result.stderr == f"kb: error: kb.toml:{line}: {message}\n"


def test_max_size_option(repo):
    (repo / "knowledge" / "big.md").write_text(FM + "# Big\n\n" + "Text. " * 300 + "\n")
    result = run("--max-size", "1024")
    assert result.exit_code == 1
    assert "big.md:1:1: error: file-too-large" in result.stdout and "good.md" not in result.stdout
    assert run("--max-size", "0").exit_code == 2


def test_max_size_has_the_minimum_of_kb_toml_max_bytes(repo):
    """`--max-size 100` was accepted (minimum 1) while `[check] max_bytes = 100` was refused
    (schema minimum 1024): one rule for both."""
    schema = json.loads((REPO / "schemas" / "kb.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["check"]["properties"]["max_bytes"]["minimum"] == MIN_MAX_BYTES
    result = run("--max-size", str(MIN_MAX_BYTES - 1))
    assert result.exit_code == 2 and "x>=1024" in result.stderr
    (repo / "kb.toml").write_text(f"[check]\nmax_bytes = {MIN_MAX_BYTES - 1}\n")
    assert run().exit_code == 1
    (repo / "kb.toml").write_text(f"[check]\nmax_bytes = {MIN_MAX_BYTES}\n")
    assert run().exit_code == 0


def test_lenient_and_no_schema(repo):
    (repo / "knowledge" / "foreign.md").write_text("---\ntitle: Foreign\nsummary: x\n---\n# F\n")
    assert run().exit_code == 1
    result = run("--lenient")
    assert result.exit_code == 0
    assert "warning: fm-missing-key" in result.stdout
    result = run("--no-schema")
    assert result.exit_code == 0 and result.stdout == ""


def test_paths_relative_to_repo_root_from_elsewhere(repo, tmp_path, monkeypatch):
    (repo / "knowledge" / "bad.md").write_text(FM + "# B\n\n![x](nope.png)\n")
    monkeypatch.chdir(repo / "knowledge" / "sub")
    result = run(str(repo / "knowledge"))
    assert result.exit_code == 1
    assert result.stdout.startswith("knowledge/bad.md:12:6: error: path-missing:")


def test_cache_reuses_parses_and_notices_changes(repo):
    doc = repo / "knowledge" / "c.md"
    doc.write_text(FM + "# C\n\n![x](../assets/Leaf.png)\n")
    assert run().exit_code == 0
    cache = repo / ".kb-cache" / "check-scans.sqlite"
    assert cache.is_file()
    assert _scans(cache) == 2
    assert run().exit_code == 0  # warm run, same answer
    doc.write_text(FM + "# C\n\n![x](../assets/gone.png)\n")
    result = run()
    assert result.exit_code == 1 and "path-missing" in result.stdout
    (repo / "assets" / "gone.png").write_bytes(b"x")  # the filesystem is never cached
    assert run().exit_code == 0
    for part in (repo / ".kb-cache").glob("check-*.sqlite*"):  # and their WAL files
        part.unlink()
    cache.write_bytes(b"not a database")
    (repo / ".kb-cache" / "check-results.sqlite").write_bytes(b"not a database")
    assert run().exit_code == 0  # broken caches are ignored and the scans rewritten
    assert _scans(cache) == 2


def _scans(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("SELECT COUNT(*) FROM scans").fetchone()[0])
    finally:
        con.close()


def test_bundled_example_knowledge_passes(repo_root, monkeypatch):
    knowledge = repo_root / "knowledge"
    if not any(knowledge.rglob("*.md")):
        pytest.skip("no example knowledge yet")
    monkeypatch.chdir(repo_root)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--json", "knowledge"])
    assert result.exit_code == 0, result.stdout
    assert [f for f in json.loads(result.stdout) if f["level"] == "error"] == []


@pytest.mark.parametrize("command", ["check", "build"])
def test_a_kb_toml_saved_by_notepad_is_read(repo, command):
    """A UTF-8 byte-order mark and CRLF (Windows Notepad) before kb.toml's first key: read
    as without them, as a document's are (tomllib refused the mark at line 1, column 1)."""
    (repo / "kb.toml").write_bytes(b"\xef\xbb\xbf[paths]\r\nknowledge = \"knowledge\"\r\n"
                                   b"[embedding]\r\nmodel = \"test-hash\"\r\n")
    result = CliRunner().invoke(main, [command])
    assert result.exit_code == 0, result.output
    assert "cannot parse" not in result.output


def test_a_folder_without_kb_toml_is_checked_without_writing_into_it(tmp_path, monkeypatch):
    """`kb check some/folder` outside a knowledge repository (someone else's Markdown, a
    read-only corpus) wrote its caches into that folder as `.kb-cache/`; they live under
    KB_HOME, one directory per folder, and a second run reads them."""
    home = tmp_path / "home"
    monkeypatch.setenv("KB_HOME", str(home))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(FM + "# A\n\nText.\n")
    monkeypatch.chdir(folder)
    before = sorted(p.name for p in folder.iterdir())
    for _ in range(2):
        result = run(str(folder))
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == before
    assert list((home / "caches").glob("notes-*/check-results.sqlite"))


def test_thousands_of_one_code_in_one_file_are_bounded_in_the_report_not_in_json(repo):
    """A document with 5,000 unknown front-matter keys (a pasted export) printed 5,000 lines,
    the other documents' findings lost among them. The report shows the first
    MAX_SHOWN_PER_CODE of one code in one file and one line saying how many more; the
    other codes and files are shown as before; the summary counts and the exit code, and
    `--json`, keep every finding."""
    from kbtools.findings import MAX_SHOWN_PER_CODE

    keys = "".join(f"zz_key_{i}: {i}\n" for i in range(5000))
    (repo / "knowledge" / "导出.md").write_text(FM.replace("---\n", "---\n" + keys, 1)
                                              + "# 导出\n\n[坏](missing.md)\n")
    (repo / "knowledge" / "sub" / "other.md").write_text(FM + "# Other\n\n[x](gone.md)\n")
    result = run()
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    unknown = [line for line in lines if ": fm-unknown-key: " in line]
    assert all(line.startswith(f"knowledge/导出.md:{i + 2}:1: error: fm-unknown-key: unknown "
                               f"key 'zz_key_{i}';") for i, line in enumerate(unknown))
    assert len(unknown) == MAX_SHOWN_PER_CODE
    assert f"… and {5000 - MAX_SHOWN_PER_CODE} more fm-unknown-key in knowledge/导出.md (kb " \
           "check --json lists them)" in lines
    assert sum("missing.md" in line for line in lines) == 1
    assert sum(line.startswith("knowledge/sub/other.md:") and "gone.md" in line
               for line in lines) == 1
    assert len(lines) == MAX_SHOWN_PER_CODE + 3
    assert result.stderr == "kb: error: check: 3 documents, 5002 errors, 0 warnings\n"
    every = json.loads(run("--json").stdout)
    assert sum(f["code"] == "fm-unknown-key" for f in every) == 5000 and len(every) == 5002
