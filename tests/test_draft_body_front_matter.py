"""A draft body that brings its own front matter after a byte-order mark or blank lines (an
agent's template, a file read with its BOM): the block became body text, a rule and a
heading "tags: [...]", and its fields were lost without a word. It is read as the body's
front matter, as a block at the very top is."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kbtools.agents.draft import create_draft
from kbtools.corpus import parse_source
from kbtools.errors import UsageError
from tests.test_draft_repo_states import note_repo

FIELDS = "---\ntags: [泵, seal]\nequipment: [HX260]\n---\n"


@pytest.fixture
def repo(tmp_path) -> Path:
    return note_repo(tmp_path)


@pytest.mark.parametrize("lead", ["\ufeff", "\n", "\n\n", "  \n\t\n", "\r\n", "\ufeff\n"],
                         ids=["bom", "blank", "blanks", "spaces", "crlf", "bom-blank"])
@pytest.mark.parametrize("text", ["密封圈漏油两次。\n", "The seal leaked twice.\n"],
                         ids=["zh", "en"])
def test_front_matter_after_a_bom_or_blank_lines_is_the_drafts(repo, lead, text):
    filed = create_draft(repo, "field-report", "Seal leak", lead + FIELDS + text,
                         author="Ann", location="Plant 2")
    document = subprocess.run(["git", "show", f"{filed.branch}:{filed.path}"], cwd=repo,
                              check=True, capture_output=True, text=True).stdout
    src = parse_source(document, repo / filed.path, filed.path)
    assert src.meta["tags"] == ["泵", "seal"] and src.meta["equipment"] == ["HX260"]
    assert src.body.strip() == text.strip()
    assert "\ufeff" not in document and "tags:" not in src.body


def test_a_body_opening_with_prose_between_rules_is_refused_after_blank_lines_too(repo):
    """What a block at the top that is no YAML fields gets, the same after blank lines."""
    with pytest.raises(UsageError, match="not YAML fields"):
        create_draft(repo, "field-report", "Rules", "\n\n---\nJust prose, no fields.\n---\nx\n",
                     author="Ann", location="Plant 2")


def test_a_body_without_front_matter_keeps_its_text(repo):
    filed = create_draft(repo, "field-report", "Plain", "\n\nThe seal leaked.\n\n---\n\nMore.\n",
                         author="Ann", location="Plant 2")
    document = subprocess.run(["git", "show", f"{filed.branch}:{filed.path}"], cwd=repo,
                              check=True, capture_output=True, text=True).stdout
    assert document.endswith("---\nThe seal leaked.\n\n---\n\nMore.\n")
