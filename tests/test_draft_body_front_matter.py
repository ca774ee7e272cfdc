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


def filed_meta(repo: Path, filed) -> dict:
    document = subprocess.run(["git", "show", f"{filed.branch}:{filed.path}"], cwd=repo,
                              check=True, capture_output=True, text=True).stdout
    return dict(parse_source(document, repo / filed.path, filed.path).meta)


@pytest.mark.parametrize(("field", "body"), [
    ("title", "---\ntitle: 密封圈漏油\n---\n正文\n"),
    ("title", "---\ntitle: Pump seal\ntags: [泵]\n---\nThe seal leaked.\n"),
    ("category", "---\ncategory: sop\n---\n正文\n"),
])
def test_a_body_naming_another_title_or_category_is_refused_naming_both(repo, field, body):
    """An agent's body `---\\ntitle: X\\n---\\n正文` was filed under the call's title, X
    dropped without a word: a title or category the body's front matter gives other than the
    call's is refused, naming both arguments, and nothing is filed."""
    heads = subprocess.run(["git", "branch", "--list"], cwd=repo, check=True,
                           capture_output=True, text=True).stdout
    with pytest.raises(UsageError) as err:
        create_draft(repo, "field-report", "Seal report", body, author="Ann",
                     location="Plant 2")
    message = str(err.value)
    assert f"the front matter of the body argument gives {field}" in message
    assert f"give the {field} once, as the {field} argument" in message
    assert subprocess.run(["git", "branch", "--list"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout == heads


def test_a_body_repeating_the_title_or_giving_it_alone_is_filed_under_it(repo):
    """The same title (spaces aside) in both is one title; a blank title argument takes the
    body's. `verified: true` in the body is never the draft's."""
    same = create_draft(repo, "field-report", "Seal  leak",
                        "---\ntitle: ' Seal leak'\ncategory: field-report\nverified: true\n"
                        "---\nThe seal leaked.\n", author="Ann", location="Plant 2")
    meta = filed_meta(repo, same)
    assert (meta["title"], meta["category"], meta["verified"]) == (
        "Seal  leak", "field-report", False)
    alone = create_draft(repo, "field-report", " ", "---\ntitle: 密封圈漏油\n---\n正文\n",
                         author="Ann", location="Plant 2")
    assert filed_meta(repo, alone)["title"] == "密封圈漏油"
    with pytest.raises(UsageError, match="non-empty title: pass the title argument"):
        create_draft(repo, "field-report", "", "---\ntitle: ''\n---\n正文\n", author="Ann",
                     location="Plant 2")


def test_kb_draft_names_its_flags_when_the_body_gives_another_title(repo, monkeypatch):
    from click.testing import CliRunner

    from kbtools.cli import main

    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["draft", "new", "--category", "field-report", "--title",
                                    "Seal report", "--author", "Ann", "--location", "P2",
                                    "--from", "-"], input="---\ntitle: 密封圈漏油\n---\n正文\n")
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines()[-1] == (
        "kb: error: the front matter of --from FILE gives title '密封圈漏油' and --title "
        "'Seal report': give the title once, as --title")


@pytest.mark.parametrize("blank", ["\u200b", " \ufeff ", "\u2060\u200b", "\u200e"])
def test_an_invisible_title_author_or_location_is_none(repo, blank):
    """An agent's title of a zero-width space alone (or a BOM, a bidi mark) was filed as
    the draft's title, a report no list can show; an author or location so was kept the
    same. They are refused as a blank one is, and one padded so is read without them."""
    with pytest.raises(UsageError, match="non-empty title: pass the title argument"):
        create_draft(repo, "field-report", blank, "正文\n", author="Ann", location="Plant 2")
    with pytest.raises(UsageError, match="^a field report needs|location"):
        create_draft(repo, "field-report", "Seal", "正文\n", author="Ann", location=blank)
    filed = create_draft(repo, "field-report", f"{blank}Seal leak{blank}", "正文\n",
                         author=f"{blank}Ann", location=f"Plant 2{blank}")
    meta = filed_meta(repo, filed)
    assert (meta["title"], meta["author"], meta["location"]) == ("Seal leak", "Ann", "Plant 2")
    assert filed.branch.endswith("-seal-leak")
