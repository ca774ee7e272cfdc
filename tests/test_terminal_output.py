"""What `kb` prints cannot drive the terminal it prints to: text from knowledge (a pull
request's document) or from a question (anyone's, in the device's query log) reaches stdout
with its control characters escaped (`kbtools.errors.terminal_text`, installed for every
command by `kbtools.cli.TerminalSafe`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hostile import built_repo_index

from kbtools.cli import main
from kbtools.errors import terminal_text
from tests.kbfixtures import GOOD_FM

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # writes "rm -rf ~" to the clipboard
HIDE = "\x1b[1A\x1b[2K"  # the cursor up a line, and that line erased
HOSTILE = (GOOD_FM.replace("title: Generated",  # YAML escapes: the same OSC 52
                           'title: "Seal replacement \\e]52;c;cm0gLXJmIH4K\\a"')
           + "\n# Seal replacement\n\nReplace the gasket seal of the booster pump every 500 "
           f"hours{HIDE}\r{OSC52}.\n")


@pytest.mark.parametrize(("text", "shown"), [
    (f"a{OSC52}b", "a\\u001b]52;c;cm0gLXJmIH4K\\u0007b"),
    (HIDE, "\\u001b[1A\\u001b[2K"),
    ("back\rspace\b, bell\x07, DEL\x7f, C1 CSI\x9b2J", "back\\u000dspace\\u0008, bell\\u0007, "
                                                       "DEL\\u007f, C1 CSI\\u009b2J"),
    ("\x1b[1mbold\x1b[0m \x1b[31mred\x1b[39m", "\x1b[1mbold\x1b[0m \x1b[31mred\x1b[39m"),
    ("\x1b[8mhidden\x1b[0m", "\\u001b[8mhidden\x1b[0m"),
    ("tab\tand\nnewline 中文 ‹›", "tab\tand\nnewline 中文 ‹›"),
])
def test_terminal_text(text, shown):
    assert terminal_text(text) == shown


def test_a_document_cannot_drive_the_terminal_kb_query_prints_to(tmp_path):
    """`kb query` printed a chunk's text as the document held it: an OSC 52 sequence in a
    pull request's document wrote the technician's clipboard, a cursor-up-and-erase hid
    the line above (the result's [UNVERIFIED] badge)."""
    dist = built_repo_index(tmp_path / "kr", {"knowledge/seal.md": HOSTILE}, model="test-hash")
    res = CliRunner().invoke(main, ["query", "--index", str(dist), "booster pump gasket seal"],
                             color=True)  # as on a terminal: click strips nothing
    assert res.exit_code == 0, res.output
    assert "booster" in res.output and "[UNVERIFIED]" in res.output
    assert "\x1b]" not in res.output and "\x1b[1A" not in res.output
    assert "\r" not in res.output and "\x07" not in res.output
    assert "\\u001b]52;c;cm0gLXJmIH4K\\u0007" in res.output
    assert "\x1b[1m" in res.output  # the CLI's own styles stay
    as_json = CliRunner().invoke(main, ["query", "--index", str(dist), "booster pump gasket",
                                        "--json"])
    text = json.loads(as_json.output)["results"][0]["text"]
    assert OSC52 in text and HIDE in text  # JSON keeps the document's text, escaped by JSON
