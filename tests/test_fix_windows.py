"""`kb check --fix` mends a file saved on Windows: the UTF-8 byte-order mark `encoding-bom`
warns of is removed and the CRLF or CR line endings `encoding-crlf` warns of are written as
LF, in one atomic replace, said per file at the finding's line. Before, both findings told
the author to save the file again and `--fix` left them. A file with neither, one that is
not UTF-8, and one whose CRLF Git turns into LF on commit (no finding) keep their bytes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = "\n# 液压泵\n\n安装前断电。\n"


def fix() -> tuple[list[str], list[str]]:
    """What `kb check --fix` said it wrote (stderr) and the findings left (stdout)."""
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    return [line for line in res.stderr.splitlines() if "fixed: " in line], \
        res.stdout.splitlines()


def test_a_mixed_file_is_written_with_lf_and_said_at_its_first_line_not_in_lf(kb: Path):
    """Pasted together from two editors: LF, then CRLF and a lone CR (old Mac text)."""
    doc = kb / "knowledge" / "a.md"
    text = GOOD_FM + BODY + "第二段。\r\n第三段。\r第四段。\n"
    doc.write_bytes(b"\xef\xbb\xbf" + text.encode())
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert "(`kb check --fix` removes it)" in res.stdout
    assert "knowledge/a.md:14:1: warning: encoding-crlf: mixed line endings (lines ending 1 in " \
        "CRLF, 1 in CR, 14 in LF), the first not in LF here: save the file with LF line " \
        "endings (`kb check --fix` writes LF)" in res.stdout.splitlines()
    said, left = fix()
    assert said == [
        "knowledge/a.md:1:1: fixed: '\\ufeff' -> '' (the UTF-8 byte-order mark)",
        "knowledge/a.md:14:1: fixed: '\\r\\n' -> '\\n' (line endings written as LF: 1 CRLF, "
        "1 CR)"]
    assert left == []
    assert doc.read_bytes() == (GOOD_FM + BODY + "第二段。\n第三段。\n第四段。\n").encode()


def test_files_without_a_bom_or_cr_or_not_utf8_keep_their_bytes(kb: Path):
    """Only the files the warnings name are written: a plain one is not even replaced (its
    inode stays), a GBK one (CR line endings and all) is left byte for byte."""
    plain = kb / "knowledge" / "plain.md"
    plain.write_text(GOOD_FM + BODY, encoding="utf-8")
    gbk = kb / "knowledge" / "gbk.md"
    gbk_bytes = (GOOD_FM + BODY).replace("\n", "\r\n").encode("gb18030")
    gbk.write_bytes(gbk_bytes)
    inode = plain.stat().st_ino
    said, _ = fix()
    assert said == []
    assert plain.stat().st_ino == inode and gbk.read_bytes() == gbk_bytes


def test_crlf_git_turns_into_lf_on_commit_is_left(kb: Path):
    """A Windows team's `* text=auto eol=crlf` checks files out with CRLF on purpose: no
    `encoding-crlf` finding, so nothing for `--fix` to write (a BOM is still removed)."""
    subprocess.run(["git", "init", "-q", str(kb)], check=True)
    (kb / ".gitattributes").write_text("* text=auto eol=crlf\n")
    doc = kb / "knowledge" / "a.md"
    crlf = (GOOD_FM + BODY).replace("\n", "\r\n").encode()
    doc.write_bytes(b"\xef\xbb\xbf" + crlf)
    said, left = fix()
    assert said == ["knowledge/a.md:1:1: fixed: '\\ufeff' -> '' (the UTF-8 byte-order mark)"]
    assert doc.read_bytes() == crlf and left == []
