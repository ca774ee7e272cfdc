"""Documents saved on Windows: UTF-16 from Notepad is named for what it is and never indexed
(not even with --lenient); a BOM and CRLF before the front matter keep its keys and the
citations' line numbers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.engine import check_paths
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import wide_encoding
from kbtools.errors import FindingsError
from kbtools.fsutil import read_json_lines
from kbtools.index.materialize import read_shards
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM + "# 水泵\n\nNotepad 保存的文字。\n\n## 密封\n\n更换密封圈。\n"
NOTEPAD = "the file is UTF-16 text (as Windows Notepad saves \"Unicode\"), not UTF-8"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n')
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "ok.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


SAVED = {
    "utf16-le-bom.md": DOC.replace("\n", "\r\n").encode("utf-16"),  # Notepad's "Unicode"
    "utf16-be-bom.md": b"\xfe\xff" + DOC.encode("utf-16-be"),
    "utf16-le.md": DOC.encode("utf-16-le"),
    "utf16-be.md": DOC.encode("utf-16-be"),
    "utf32.md": DOC.encode("utf-32"),
    "utf16-cjk-only.md": "\ufeff水泵密封".encode("utf-16-le"),  # no NUL byte at all
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_utf16_is_named_not_called_binary(repo, name):
    (repo / "knowledge" / name).write_bytes(SAVED[name])
    ((path, line, level, code, message),) = [
        (f.path, f.line, f.level, f.code, f.message)
        for f in check_paths([repo / "knowledge"], load_config(repo))]
    assert (path, line, level, code) == (f"knowledge/{name}", 1, "error", "encoding-utf16")
    assert message == ("file is " + ("UTF-32" if name == "utf32.md" else "UTF-16")
                       + NOTEPAD[len("the file is UTF-16"):] + ": save it as UTF-8")
    result = CliRunner().invoke(main, ["chunks", f"knowledge/{name}"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith(
        f"kb: error: knowledge/{name}: encoding-utf16: file is UTF-")


def test_binary_files_and_plain_text_are_not_taken_for_utf16():
    assert wide_encoding(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") is None
    assert wide_encoding(DOC.encode("utf-8")) is None
    assert wide_encoding(b"\xef\xbb\xbf" + DOC.encode("utf-8")) is None
    assert wide_encoding(b"a\x00") is None


def test_a_lenient_build_refuses_utf16_and_binary_documents(repo):
    """--lenient indexes documents with front-matter and link problems; one whose text is
    NULs and mojibake was indexed as such (`t i t l e :`), and is now refused in one line."""
    (repo / "knowledge" / "notepad.md").write_bytes(SAVED["utf16-le-bom.md"])
    cfg = load_config(repo)
    with pytest.raises(FindingsError) as err:
        build(cfg, BuildOptions(out=repo / "dist", lenient=True))
    assert "knowledge/notepad.md:1:1: error: encoding-utf16" in str(err.value)
    assert not (repo / "dist").exists()
    (repo / "knowledge" / "notepad.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(FindingsError) as err:
        build(cfg, BuildOptions(out=repo / "dist", lenient=True))
    assert "knowledge/notepad.md:1:1: error: file-binary" in str(err.value)


def test_utf8_text_with_a_stray_nul_is_named_at_its_line_and_indexed_when_lenient(repo):
    """A NUL pasted into UTF-8 Markdown is not binary data: `kb check` names its line
    (file-nul), and a lenient build (foreign corpora) indexes the document as it is."""
    (repo / "knowledge" / "stray.md").write_bytes(
        DOC.replace("水泵", "Stray").encode("utf-8").replace(b"\n\n", b"\n\x00\n", 1))
    cfg = load_config(repo)
    found = [(f.path, f.line, f.code) for f in check_paths([repo / "knowledge"], cfg)]
    assert found == [("knowledge/stray.md", DOC.split("\n\n")[0].count("\n") + 2, "file-nul")]
    build(cfg, BuildOptions(out=repo / "dist", lenient=True))
    assert "knowledge/stray.md" in {c["doc"] for c in read_shards(repo / "dist")[0]}


def test_bom_and_crlf_keep_front_matter_and_line_numbers(repo):
    (repo / "knowledge" / "windows.md").write_bytes(
        b"\xef\xbb\xbf" + DOC.replace("水泵", "Windows").replace("\n", "\r\n").encode("utf-8"))
    cfg = load_config(repo)
    assert {f.code for f in check_paths([repo / "knowledge"], cfg)} == {"encoding-bom",
                                                                        "encoding-crlf"}
    build(cfg, BuildOptions(out=repo / "dist"))
    chunks = {c["doc"]: c for c in read_shards(repo / "dist")[0]}
    plain, windows = chunks["knowledge/ok.md"], chunks["knowledge/windows.md"]
    assert (windows["line_start"], windows["line_end"]) == (plain["line_start"], plain["line_end"])
    assert windows["text"] == plain["text"].replace("水泵", "Windows")
    assert "\r" not in windows["text"]
    meta = {d["doc"]: d for d in read_json_lines(repo / "dist" / "data" / "docs.jsonl")}
    assert meta["knowledge/windows.md"]["metadata"] == meta["knowledge/ok.md"]["metadata"]  # the key after the BOM


def test_mixed_line_endings_are_named_at_the_first_line_not_in_lf(repo):
    """A document pasted together from a Windows editor and a Unix one (BOM, then CRLF on
    some lines, a lone CR, LF on the rest): the warning said "Windows (CRLF) or CR line
    endings" at line 1, which may end in LF, and no editor shows the difference. Now at
    the first line ending otherwise, with how many of each; the line numbers of the other
    findings are unchanged (the table row at line 14 stays at line 14)."""
    text = (GOOD_FM + "# 标题\n\nline a\nline b\r\nline c\rline d\n\n| a | b |\n|---|---|\n"
            "| 1 | 2 | 3 |\n")
    (repo / "knowledge" / "mixed.md").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    at = GOOD_FM.count("\n") + 4  # "line b"
    found = {(f.code, f.line, f.message) for f in check_paths([repo / "knowledge" / "mixed.md"],
                                                              load_config(repo))}
    assert ("encoding-crlf", at, "mixed line endings (lines ending 1 in CRLF, 1 in CR, "
            f"{text.count(chr(10)) - 1} in LF), the first not in LF here: save the file with "
            "LF line endings (`kb check --fix` writes LF)") in found
    assert ("table-cells", at + 6) in {(c, ln) for c, ln, _m in found}
    assert ("encoding-bom", 1) in {(c, ln) for c, ln, _m in found}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org",
                    "-c", "core.autocrlf=false", *args], check=True, capture_output=True)


def _crlf_codes(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for f in check_paths([root / "knowledge"], load_config(root)):
        if f.code == "encoding-crlf":
            found[f.path] = found.get(f.path, 0) + 1
    return found


def test_crlf_is_flagged_only_where_git_would_commit_it(repo: Path):
    """A Windows team's `* text=auto eol=crlf` checks every document out with CRLF on
    purpose and commits LF: `kb check` warned `encoding-crlf` on every file of the checkout.
    It warns only where a commit would keep the CRLF: `-text`, a file in the index with CRLF
    (git's text=auto keeps it), no attribute and core.autocrlf off."""
    crlf = DOC.replace("\n", "\r\n").encode()
    knowledge = repo / "knowledge"
    _git(repo, "init", "-q")
    (knowledge / "kept").mkdir()
    (knowledge / "kept" / "old.md").write_bytes(crlf)
    _git(repo, "add", "knowledge/kept/old.md")  # stored with CRLF before the attribute: kept
    (repo / ".gitattributes").write_text("* text=auto eol=crlf\n*.bin.md -text\n")
    (knowledge / "ok.md").write_bytes(crlf)  # as the checkout writes it
    _git(repo, "add", ".gitattributes", "knowledge/ok.md")
    _git(repo, "commit", "-qm", "docs")
    (knowledge / "new.md").write_bytes(crlf)  # not added yet: added, it is LF
    (knowledge / "raw.bin.md").write_bytes(crlf)
    assert _crlf_codes(repo) == {"knowledge/kept/old.md": 1, "knowledge/raw.bin.md": 1}
    _git(repo, "rm", "-q", ".gitattributes")  # no attribute: core.autocrlf decides
    assert set(_crlf_codes(repo)) == {"knowledge/kept/old.md", "knowledge/raw.bin.md",
                                      "knowledge/ok.md", "knowledge/new.md"}
    _git(repo, "config", "core.autocrlf", "input")
    assert set(_crlf_codes(repo)) == {"knowledge/kept/old.md"}


def test_crlf_outside_git_is_flagged(repo: Path):
    (repo / "knowledge" / "ok.md").write_bytes(DOC.replace("\n", "\r\n").encode())
    assert _crlf_codes(repo) == {"knowledge/ok.md": 1}


def test_fix_mends_a_notepad_files_bom_and_crlf_and_leaves_other_encodings_alone(repo):
    """`kb check --fix` of a document saved by Windows Notepad (UTF-8 with a BOM, CRLF)
    rewrites the path it mends and writes the file without the BOM, with LF, as the two
    warnings ask (under `core.autocrlf` the CRLF is Git's to convert: no warning, no
    rewrite, `tests/test_fix_windows.py`); every other byte stays. A GBK or UTF-16 file, which
    it cannot edit as text without guessing, is left byte for byte, with the one line
    naming the encoding to save it in."""
    (repo / "assets").mkdir()
    (repo / "assets" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    text = DOC + "![泵](..\\assets\\pump.png)\n"
    notepad = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
    doc = repo / "knowledge" / "pump.md"
    doc.write_bytes(notepad)
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert "fixed: ..\\assets\\pump.png -> ../assets/pump.png" in res.output, res.output
    assert doc.read_bytes() == notepad.replace(b"..\\assets\\pump.png", b"../assets/pump.png"
                                               ).removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    assert "encoding-bom" not in res.stdout and "encoding-crlf" not in res.stdout
    doc.unlink()
    for name, data, said in (
            ("gbk.md", text.encode("gbk"), "saved as GBK/GB18030 (Simplified Chinese "
                                           "Windows), not UTF-8: save it as UTF-8"),
            ("utf16.md", text.encode("utf-16"), "encoding-utf16: file is UTF-16 text (as "
                                                "Windows Notepad saves \"Unicode\"), not UTF-8: "
                                                "save it as UTF-8")):
        (repo / "knowledge" / name).write_bytes(data)
        res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
        assert res.exit_code == 1 and said in res.stdout and "fixed" not in res.output
        assert (repo / "knowledge" / name).read_bytes() == data
        (repo / "knowledge" / name).unlink()
