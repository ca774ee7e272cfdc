"""A front matter block that does not begin the file (a blank line above it, pasted from a
template; a second byte-order mark an editor wrote; an indented fence) is read as Markdown
text, as by GitHub, Obsidian and Typora. `kb check` said only "no front matter block: begin
the file with these lines …", which the author, looking at the block, could not act on:
`fm-missing` now names the block's line and what to delete above it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = "# 液压泵\n\n先断电。\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(repo: Path, raw: bytes) -> tuple[int, list[str]]:
    (repo / "knowledge" / "pump.md").write_bytes(raw)
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    return result.exit_code, [line for line in result.stdout.splitlines()
                              if "encoding-" not in line]


@pytest.mark.parametrize(("raw", "line", "what"), [
    (("\n" + GOOD_FM + BODY).encode(), 2, "the blank line 1"),
    (("\n \t\n\n" + GOOD_FM + BODY).encode(), 4, "the blank lines 1-3"),
    (("\n" + GOOD_FM + BODY).replace("\n", "\r\n").encode(), 2, "the blank line 1"),
    (b"\xef\xbb\xbf\xef\xbb\xbf" + (GOOD_FM + BODY).encode(), 1, "the invisible U+FEFF"),
    (("\u200b\n" + GOOD_FM + BODY).encode(), 2, "the blank line 1 (it holds an invisible U+200B)"),
    (("  " + GOOD_FM + BODY).encode(), 1, "the spaces"),
])
def test_a_block_below_line_1_is_named_with_what_to_delete(repo, raw, line, what):
    code, out = check(repo, raw)
    assert code == 1
    assert out == [f"knowledge/pump.md:1:1: error: fm-missing: the front matter block at line "
                   f"{line} does not begin the file, so it is read as text: delete {what} "
                   "before its '---' (kb check --fix does)"]


def test_deleting_what_it_names_leaves_the_document_clean(repo):
    code, _ = check(repo, ("\n\n" + GOOD_FM + BODY).encode())
    assert code == 1
    assert check(repo, (GOOD_FM + BODY).encode()) == (0, [])


@pytest.mark.parametrize("raw", [
    BODY,  # no block at all
    "\n\n" + GOOD_FM.removesuffix("---\n") + BODY,  # opened below line 1, never closed
    "说明\n" + GOOD_FM + BODY,  # text above: the `---` is a heading's underline
])
def test_otherwise_it_says_what_to_write(repo, raw):
    code, out = check(repo, raw.encode())
    assert code == 1 and len(out) == 1
    assert "fm-missing: no front matter block: begin the file with these lines" in out[0]


TOML = "+++\ntitle = \"液压泵\"\ncategory = \"engineering\"\n+++\n"


@pytest.mark.parametrize(("raw", "said"), [
    (TOML + BODY, "line 1 opens TOML front matter (+++, as Hugo writes it), which kbtools does "
                  "not read: write it as YAML (key: value lines) between '---' lines: begin "
                  "the file with these lines"),
    ("\n" + TOML + BODY, "line 2 opens TOML front matter"),
    ("----" + GOOD_FM[3:] + BODY, "line 1 is 4 dashes: a front matter block opens and closes "
                                  "with a line of exactly three, '---'"),
    ("<!-- 草稿 -->\n" + GOOD_FM + BODY, "the front matter block at lines 2-10 is below text "
                                       "('<!-- 草稿 -->' at line 1), so it is read as text: "
                                       "move it to the top of the file"),
    ("# Pump\n\n" + GOOD_FM + BODY, "the front matter block at lines 3-11 is below text "
                                    "('# Pump' at line 1), so it is read as text: move it to "
                                    "the top of the file"),
])
def test_a_front_matter_of_another_kind_or_place_says_what_it_is(repo, raw, said):
    """TOML front matter (Hugo), a fence of four dashes and a block below a comment or a
    title were "no front matter block: begin the file with these lines …" as if none were
    there; `--fix` changes none of them (what to move or rewrite is the author's call)."""
    code, out = check(repo, raw.encode())
    assert code == 1 and len(out) == 1
    assert out[0].startswith(f"knowledge/pump.md:1:1: error: fm-missing: {said}")
    if said.endswith(("the file", "'---'")):  # the whole message: no block to write
        assert out[0] == f"knowledge/pump.md:1:1: error: fm-missing: {said}"
    assert CliRunner().invoke(main, ["check", "--no-cache", "--fix"]).exit_code == 1
    assert (repo / "knowledge" / "pump.md").read_bytes() == raw.encode()


def test_thematic_breaks_around_text_are_no_front_matter(repo):
    code, out = check(repo, b"# Pump\n\nText.\n\n---\n\nMore text.\n\n---\n\nEnd.\n")
    assert code == 1
    assert "fm-missing: no front matter block: begin the file with these lines" in out[0]
