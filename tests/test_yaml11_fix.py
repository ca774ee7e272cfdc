"""`kb check --fix` quotes a `yaml-1.1-value` as written where the schema wants text there
(`code: 010` → `code: "010"`), in one atomic write that keeps every other byte (comments,
line endings, BOM); elsewhere the warning stays and says why `--fix` left it. Before,
`--fix` left every such value, and the warning did not say whether it could be fixed."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError

from kbtools.check.yaml11 import MAX_JUDGED, yaml11_check
from kbtools.cli import main
from kbtools.corpus import parse_source
from tests.kbfixtures import REPO
from tests.test_frontmatter_editors import BODY, HEAD
from tests.test_yaml11_values import SCALARS, _read

EXTRA = {"count": {"type": "integer"}, "free": {}, "either": {"type": ["string", "integer"]},
         "codes": {"type": "array", "items": {"type": "string"}},
         "parts": {"type": "object", "properties": {"pump": {"type": "array",
                                                             "items": {"type": "string"}}}},
         "country": {"type": "string"}, "answer": {"enum": ["yes", "no", "maybe"]},
         "shape": {"type": "string", "pattern": "^[a-z]+$"}}


@pytest.fixture
def kb(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    shutil.copytree(REPO / "kbtools" / "data" / "schemas", tmp_path / "schemas")
    schema_file = tmp_path / "schemas" / "frontmatter.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["properties"].update(EXTRA)
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str) -> tuple[int, list[str]]:
    """Exit code and lines: the findings (stdout), then what `--fix` wrote (stderr)."""
    res = CliRunner().invoke(main, ["check", *args])
    return res.exit_code, res.stdout.splitlines() + res.stderr.splitlines()


W = "knowledge/a.md:{}: warning: yaml-1.1-value: "


def test_fix_quotes_values_the_schema_wants_as_text_and_keeps_every_other_byte(kb):
    front = ("location: 010  # the room\r\n"
             "codes: [稻瘟病, 0x1F, \"011\"]\r\n"
             "parts:\r\n  pump:\r\n    - OFF\r\n    - 1:30 # a comment\r\n"
             "country: NO\r\n"
             "answer: no\r\n")
    head = HEAD.replace("\n", "\r\n").replace("title: Generated", "title: yes")
    doc = kb / "knowledge" / "a.md"
    doc.write_bytes(b"\xef\xbb\xbf" + (head + front + BODY.replace("\n", "\r\n")).encode())
    before = doc.read_bytes()
    code, out = run("--no-cache")
    assert code == 1  # title: yes is an fm-type error
    assert W.format("9:11") + 'location: 010 is read as 8 (YAML 1.1 reads a number with a ' \
        'leading 0 as octal), not as written: write location: "010" to keep the text, or ' \
        "location: 8 for the number (kb check --fix quotes it: the schema wants text there)" \
        in out
    code, out = run("--fix")
    assert code == 0, out
    assert doc.read_bytes() == before.replace(b"title: yes", b'title: "yes"').replace(
        b"010  #", b'"010"  #').replace(b"0x1F", b'"0x1F"').replace(b"- OFF", b'- "OFF"') \
        .replace(b"1:30 #", b'"1:30" #').replace(b"NO\r", b'"NO"\r').replace(
            b"answer: no", b'answer: "no"').removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    fixed = [line for line in out if ": fixed: " in line and ":1:1:" not in line]  # BOM, LF
    assert fixed == ['knowledge/a.md:2:8: fixed: yes -> "yes"',
                     'knowledge/a.md:9:11: fixed: 010 -> "010"',
                     'knowledge/a.md:10:14: fixed: 0x1F -> "0x1F"',
                     'knowledge/a.md:13:7: fixed: OFF -> "OFF"',
                     'knowledge/a.md:14:7: fixed: 1:30 -> "1:30"',
                     'knowledge/a.md:15:10: fixed: NO -> "NO"',
                     'knowledge/a.md:16:9: fixed: no -> "no"']
    code, out = run("--no-cache")  # nothing left: the BOM and CRLF mended too
    assert code == 0 and out[:-1] == [], out
    meta = parse_source(doc.read_text(encoding="utf-8-sig"), doc, "knowledge/a.md").meta
    assert (meta["title"], meta["location"], meta["codes"], meta["parts"]["pump"]) == \
        ("yes", "010", ["稻瘟病", "0x1F", "011"], ["OFF", "1:30"])


@pytest.mark.parametrize(("front", "why"), [
    ("count: 010\n", "the schema wants the number there"),
    ("free: 0x1F\n", "the schema takes the number as well as the text: quote it if you "
     "mean the text"),
    ("either: 1_000\n", "the schema takes the number as well as the text: quote it if you "
     "mean the text"),
    ("shape: 0x1F\n", "the schema takes neither the number nor the text: see its errors"),
    ("location: &x 010\nsection: *x\n", "other values repeat it (&x): quote it by hand if "
     "they all mean text"),
])
def test_elsewhere_the_warning_stays_and_says_why(kb, front, why):
    doc = kb / "knowledge" / "a.md"
    doc.write_text(HEAD + front + BODY, encoding="utf-8")
    before = doc.read_bytes()
    _, out = run("--fix")
    assert doc.read_bytes() == before
    said = [line for line in out if "yaml-1.1-value" in line]
    assert len(said) == 1 and said[0].endswith(f" (kb check --fix leaves it: {why})"), out
    assert not any(": fixed: " in line for line in out)


def test_without_the_schema_nothing_is_quoted(kb):
    doc = kb / "knowledge" / "a.md"
    doc.write_text(HEAD + "location: 010\n" + BODY, encoding="utf-8")
    _, out = run("--fix", "--no-schema")
    assert out == [W.format("9:11") + 'location: 010 is read as 8 (YAML 1.1 reads a number '
                   'with a leading 0 as octal), not as written: write location: "010" to '
                   "keep the text, or location: 8 for the number (kb check --fix leaves it: "
                   "checked without the schema (--no-schema), nothing says it is text)",
                   "kb check: 1 document, 0 errors, 1 warning"]
    assert "010" in doc.read_text(encoding="utf-8") and '"010"' not in doc.read_text("utf-8")


def test_the_results_cache_keeps_the_fix(kb):
    doc = kb / "knowledge" / "a.md"
    doc.write_text(HEAD + "location: 0b101\n" + BODY, encoding="utf-8")
    first = run()
    assert first == run() and first[0] == 1  # the second run reads the results cache
    _, out = run("--fix")
    assert 'knowledge/a.md:9:11: fixed: 0b101 -> "0b101"' in out
    assert 'location: "0b101"\n' in doc.read_text(encoding="utf-8")


_STRING = [Draft202012Validator({"type": "object", "properties": {"k": {"type": "string"},
                                                                  "n": {"type": "number"}}})]


@settings(max_examples=600, deadline=None)
@given(text=SCALARS, comment=st.sampled_from(["", " # note", "  #x"]),
       number=st.booleans())
def test_a_quoted_value_reads_as_written_and_nothing_else_changes(text, comment, number):
    """Under a key the schema wants text, every value YAML 1.1 reads otherwise is quoted
    (one edit at the warning's place), and the front matter then reads the text, with no
    warning, the rest of it unchanged; under a key that wants a number, none is."""
    read = _read(text)
    if read is ... or "\n" in text or text != text.strip():
        return
    key = "n" if number else "k"
    front = f"a: 1\n{key}: {text}{comment}\nz: [x]\n"
    problems, edits = _check(front)
    if number or not problems:
        assert edits == [], (text, problems)
        return
    ((_, line, col, message),) = problems
    assert message.endswith("(kb check --fix quotes it: the schema wants text there)")
    assert [(e.line, e.col, e.old, e.new) for e in edits] == [(line, col, text, f'"{text}"')]
    lines = front.split("\n")
    at = lines[line - 2]
    lines[line - 2] = at[:col - 1] + f'"{text}"' + at[col - 1 + len(text):]
    fixed = "\n".join(lines)
    assert re.sub(r'"([^"]*)"', r"\1", fixed, count=1) == front
    assert yaml.safe_load(fixed) == {"a": 1, key: text, "z": ["x"]}
    assert _check(fixed) == ([], [])


def _check(front: str) -> tuple[list, list]:
    src = parse_source(f"---\n{front}---\n", Path("a.md"), "a.md")
    return yaml11_check(src, None, lambda: _STRING)


def test_values_quoted_together_must_keep_the_schema_content():
    """Each value alone may be quoted (the schema's `not` holds), both together may not:
    neither is quoted, and each warning says why."""
    schema = Draft202012Validator({
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "not": {"properties": {"a": {"const": "010"}, "b": {"const": "010"}},
                "required": ["a", "b"]}})
    src = parse_source("---\na: 010\nb: 010\n---\n", Path("a.md"), "a.md")
    problems, edits = yaml11_check(src, None, lambda: [schema])
    assert edits == [] and len(problems) == 2
    assert all(m.endswith("(kb check --fix leaves it: quoting these values together gives the "
                          "schema an error they do not have now: quote them by hand)")
               for _, _, _, m in problems)


class _Counted:
    """A schema that counts how often it is asked (in place of a timing, which a loaded
    machine breaks: 11 s against 10 under eight test runs)."""

    def __init__(self, validator: Draft202012Validator) -> None:
        self.validator, self.asked = validator, 0

    def iter_errors(self, doc: object) -> Iterator[ValidationError]:
        self.asked += 1
        return self.validator.iter_errors(doc)


def test_a_long_list_asks_the_schema_a_few_times():
    """19,000 items (under the 20,000-node limit): one place and value, asked once; and at
    most MAX_JUDGED distinct places and values are asked, the rest said to be by hand."""
    items = _Counted(Draft202012Validator({"properties": {"k": {"type": "array",
                                                               "items": {"type": "string"}}}}))
    src = parse_source("---\nk: [" + ", ".join(["010"] * 19_000) + "]\n---\n", Path("a.md"),
                       "a.md")
    problems, edits = yaml11_check(src, None, lambda: [items])  # type: ignore[list-item]
    assert len(edits) == len(problems) == 19_000
    assert items.asked == 3  # as read, the one place and value as text, all of them quoted
    front = "".join(f"k{i}: 0x{i + 10:X}\n" for i in range(MAX_JUDGED + 3))
    free = Draft202012Validator({"additionalProperties": {"type": "string"}})
    problems, edits = yaml11_check(parse_source(f"---\n{front}---\n", Path("a.md"), "a.md"),
                                   None, lambda: [free])
    assert len(edits) == MAX_JUDGED and [m.rpartition("(")[2] for _, _, _, m in problems[-3:]] \
        == [f"kb check --fix leaves it: more than {MAX_JUDGED} such values to ask the schema "
            "about: quote the rest by hand)"] * 3
