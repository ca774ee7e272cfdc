"""Files as a new author's editors and habits make them, side by side in one knowledge
folder: each is one error naming the file and a line, `kb check` exits 1, and
`kb check --fix` changes no byte of any of them (none is a mechanical repair)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "水稻 稻飞虱") + "\n# 稻飞虱\n\n迁飞性害虫。\n"

FILES: dict[str, tuple[bytes, str, int]] = {  # name: (bytes, the one code, its line)
    "gbk 笔记.md": (DOC.encode("gb18030"), "encoding-not-utf8", 2),
    "notepad.md": (DOC.encode("utf-16"), "encoding-utf16", 1),
    "utf16be.md": (DOC.encode("utf-16-be"), "encoding-utf16", 1),
    "nul byte.md": (DOC.replace("迁飞", "迁\0飞").encode(), "file-nul", 13),
    "empty.md": (b"", "file-empty", 1),
    "only front matter.md": (GOOD_FM.encode(), "body-empty", 10),
    "Upper.MD": (DOC.encode(), "file-extension", 1),
    "long.markdown": (DOC.encode(), "file-extension", 1),
    "huge.md": (DOC.encode() + b"x" * (3 * 1024 * 1024), "file-too-large", 1),
    "verified yes.md": (DOC.replace("verified: false", "verified: 是").encode(), "fm-type", 8),
    "month 13.md": (DOC.replace('"2026-03-14T09:30:00+08:00"', "2026-13-01").encode(),
                    "fm-timestamp", 7),
}


def test_each_file_is_one_error_at_its_line_and_fix_changes_no_byte(kb: Path, tmp_path_factory):
    folder = kb / "knowledge"
    for name, (data, _, _) in FILES.items():
        (folder / name).write_bytes(data)
    outside = tmp_path_factory.mktemp("outside") / "elsewhere.md"
    outside.write_text(DOC, encoding="utf-8")
    (folder / "linked out.md").symlink_to(outside)
    expected = {f"knowledge/{name}": (code, line) for name, (_, code, line) in FILES.items()}
    expected["knowledge/linked out.md"] = ("path-symlink-escape", 1)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1
    found: dict[str, list[tuple[str, int]]] = {}
    for line in res.stdout.splitlines():
        where, level, code, _ = line.split(": ", 3)
        path, row, _ = where.rsplit(":", 2)
        assert level == "error", line
        found.setdefault(path, []).append((code, int(row)))
    assert found == {path: [one] for path, one in expected.items()}

    fixed = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert fixed.exit_code == 1 and ": fixed: " not in fixed.stderr
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert outside.read_text(encoding="utf-8") == DOC
