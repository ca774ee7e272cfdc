"""`heading-skip` (`kbtools.check.content.heading_skips`): a warning at a heading more than
one level below the heading before it, naming the level found and the level expected. The
document's title is level 1 (it heads every chunk's heading path), so a document with a
front matter `title` may begin at `##`; headings inside quotes and lists make no section
and are not counted."""

from __future__ import annotations

from pathlib import Path

from kbtools.check.engine import check_paths
from kbtools.config import load_config
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")


def skips(tmp_path: Path, body: str) -> list[tuple[int, str, str]]:
    """(line, level, message) of each heading-skip finding for a document `body`."""
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir(exist_ok=True)
    (tmp_path / "knowledge" / "doc.md").write_text(GOOD_FM + body, encoding="utf-8")
    found = check_paths([tmp_path / "knowledge"], load_config(tmp_path))
    assert {f.code for f in found} <= {"heading-skip"}, found
    return [(f.line - FM_LINES, f.level, f.message) for f in found]


def test_a_skipped_level_is_a_warning_naming_the_levels(tmp_path):
    [(line, level, message)] = skips(tmp_path, "# 液压系统\n\n### 压力异常\n\n检查溢流阀。\n")
    assert (line, level) == (3, "warning")
    assert message.startswith("heading level 3 (###) after a level-1 heading (#): expected "
                              "level 2 (##) at most")


def test_the_title_is_level_one(tmp_path):
    """GOOD_FM has a `title`: `##` first is the title's section, `###` first skips `##`."""
    assert skips(tmp_path, "## 概述\n\n正文。\n\n### 细节\n\n正文。\n") == []
    [(line, _, message)] = skips(tmp_path, "### 细节\n\n正文。\n")
    assert line == 1
    assert message.startswith("heading level 3 (###) after the document's title (level 1): "
                              "expected level 2 (##)")


def test_only_the_heading_that_skips_is_flagged(tmp_path):
    body = ("# A\n\n### B\n\n#### C\n\n## D\n\n#### E\n\nF\n===\n\n"
            "G\n---\n\n> #### in a quote\n\n- #### in a list\n\n```\n#### code\n```\n")
    assert [(line, msg.split(":")[0]) for line, _, msg in skips(tmp_path, body)] == [
        (3, "heading level 3 (###) after a level-1 heading (#)"),
        (9, "heading level 4 (####) after a level-2 heading (##)")]


def test_levels_going_back_up_are_never_flagged(tmp_path):
    assert skips(tmp_path, "# A\n\n## B\n\n### C\n\n#### D\n\n# E\n\n## F\n") == []


def test_a_markdownlint_comment_turning_md001_off_is_honoured(tmp_path):
    """The tidb docs' configuration pages write `#` then `###` under
    `<!-- markdownlint-disable MD001 -->`: the author said the levels are meant."""
    body = "# 配置文件\n\n<!-- markdownlint-disable MD001 -->\n\n### log-level\n\n正文。\n"
    assert skips(tmp_path, body) == []
    for comment in ("<!-- markdownlint-disable heading-increment -->",
                    "<!--markdownlint-disable   md001 MD041-->", "<!-- markdownlint-disable -->",
                    "<!-- MarkdownLint-Disable-File MD001 -->"):
        assert skips(tmp_path, f"# A\n\n{comment}\n\n### B\n") == [], comment
    assert skips(tmp_path, "# A\n\n### B\n\n<!-- markdownlint-disable-file MD001 -->\n") == []
    # in an HTML block holding more than comments, as markdownlint reads it anywhere
    assert skips(tmp_path, "# A\n\n<div>\n<!-- markdownlint-disable MD001 -->\n</div>\n\n"
                           "### B\n") == []


def test_markdownlint_comments_hold_where_markdownlint_says(tmp_path):
    body = ("# A\n\n### B\n\n<!-- markdownlint-disable MD001 -->\n\n# C\n\n### D\n\n"
            "<!-- markdownlint-enable MD001 -->\n\n# E\n\n### F\n\n"
            "<!-- markdownlint-disable-next-line MD001 -->\n### G\n\n# H\n\n"
            "### I <!-- markdownlint-disable-line MD001 -->\n\n# J\n\n### K\n")
    assert [line for line, _, _ in skips(tmp_path, body)] == [3, 15, 26]


def test_other_rules_and_comments_in_code_leave_the_warning(tmp_path):
    for body in ("# A\n\n<!-- markdownlint-disable MD041 MD007 -->\n\n### B\n",
                 "# A\n\n```md\n<!-- markdownlint-disable MD001 -->\n```\n\n### B\n",
                 "# A\n\n<!-- markdownlint-disable-file MD001 -->\n"
                 "<!-- markdownlint-enable-file MD001 -->\n\n### B\n"):
        assert len(skips(tmp_path, body)) == 1, body
