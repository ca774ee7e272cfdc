"""docs/cli.md is generated from --help and must not go stale."""

from kbtools.clidocs import render
from tests.kbfixtures import REPO


def test_cli_reference_is_current():
    current = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == render(), "regenerate: python -m kbtools.clidocs > docs/cli.md"


def test_cli_reference_names_kb_not_main():
    text = render()
    assert "Usage: kb [OPTIONS] COMMAND" in text and "Usage: kb query [OPTIONS]" in text
    assert "Usage: main" not in text
