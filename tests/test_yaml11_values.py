"""`yaml-1.1-value`: a plain front-matter value PyYAML (YAML 1.1) reads otherwise than it is
written (`code: 010` is 8, `time: 1:30` 90, `answer: no` false) is a warning at the value,
saying what YAML reads and what to write. Before, `kb check` said nothing unless a schema
typed the key, and then only "expected string, got int"; `--where code=010` matched nothing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.check.yaml11 import yaml11_problems
from kbtools.cli import main
from kbtools.corpus import parse_source
from tests.test_frontmatter_editors import BODY, HEAD


def check(kb: Path, front: str, *args: str) -> tuple[int, list[str]]:
    (kb / "knowledge" / "a.md").write_text(HEAD + front + BODY, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", *args])
    return res.exit_code, res.stdout.splitlines()


def warnings(kb: Path, front: str) -> list[str]:
    """The findings of `front` (lines from 9 on) without the schema: each key is free."""
    code, out = check(kb, front, "--no-cache", "--no-schema")
    assert code == 0, out  # warnings only
    return out


W = "knowledge/a.md:{}: warning: yaml-1.1-value: "
# what each warning ends with: whether `kb check --fix` quotes the value (tests/test_yaml11_fix.py)
NO_SCHEMA = (" (kb check --fix leaves it: checked without the schema (--no-schema), nothing "
             "says it is text)")
QUOTED = " (kb check --fix quotes it: the schema wants text there)"


@pytest.mark.parametrize(("front", "where", "said"), [
    ("code: 010\n", "9:7", 'code: 010 is read as 8 (YAML 1.1 reads a number with a leading 0 '
     'as octal), not as written: write code: "010" to keep the text, or code: 8 for the '
     "number"),
    ("code: -007\n", "9:7", 'code: -007 is read as -7 (YAML 1.1 reads a number with a leading '
     '0 as octal), not as written: write code: "-007" to keep the text, or code: -7 for the '
     "number"),
    ("code: 0x1F\n", "9:7", 'code: 0x1F is read as 31 (YAML 1.1 reads 0x… as hexadecimal), '
     'not as written: write code: "0x1F" to keep the text, or code: 31 for the number'),
    ("code: 0b101\n", "9:7", 'code: 0b101 is read as 5 (YAML 1.1 reads 0b… as binary), not as '
     'written: write code: "0b101" to keep the text, or code: 5 for the number'),
    ("time: 1:30\n", "9:7", "time: 1:30 is read as 90 (YAML 1.1 reads numbers joined by ':' "
     'in base 60), not as written: write time: "1:30" to keep the text, or time: 90 for the '
     "number"),
    ("time: 1:30.5\n", "9:7", "time: 1:30.5 is read as 90.5 (YAML 1.1 reads numbers joined by "
     "':' in base 60), not as written: write time: \"1:30.5\" to keep the text, or time: 90.5 "
     "for the number"),
    ("count: 1_000\n", "9:8", "count: 1_000 is read as 1000 (YAML 1.1 reads a number with its "
     "'_' left out), not as written: write count: \"1_000\" to keep the text, or count: 1000 "
     "for the number"),
    ("ext: .inf\n", "9:6", "ext: .inf is read as the number infinity (YAML 1.1 reads .inf and "
     '.nan as numbers), not as text: write ext: ".inf" to keep the text'),
    ("answer: no\n", "9:9", "answer: no is read as the boolean false (YAML 1.1; YAML 1.2 and "
     'people read the word): write answer: false, or answer: "no" to keep the word'),
    ("country: NO  # Norway\n", "9:10", "country: NO is read as the boolean false (YAML 1.1; "
     'YAML 1.2 and people read the word): write country: false, or country: "NO" to keep '
     "the word"),
    ("light: On\n", "9:8", "light: On is read as the boolean true (YAML 1.1; YAML 1.2 and "
     'people read the word): write light: true, or light: "On" to keep the word'),
])
def test_each_value_yaml_11_reads_otherwise_is_named_at_it(kb, front, where, said):
    assert warnings(kb, front) == [W.format(where) + said + NO_SCHEMA]


def test_values_inside_lists_and_mappings_are_named_where_they_are_written(kb):
    front = ("codes: [稻瘟病, 010, \"011\"]\n"
             "parts:\n"
             "  pump:\n"
             "    - OFF\n"
             "    - yes\n")
    assert warnings(kb, front) == [
        W.format("9:14") + 'codes.1: 010 is read as 8 (YAML 1.1 reads a number with a leading '
        '0 as octal), not as written: write "010" to keep the text, or 8 for the number'
        + NO_SCHEMA,
        W.format("12:7") + "parts.pump.0: OFF is read as the boolean false (YAML 1.1; YAML "
        '1.2 and people read the word): write false, or "OFF" to keep the word' + NO_SCHEMA,
        W.format("13:7") + "parts.pump.1: yes is read as the boolean true (YAML 1.1; YAML 1.2 "
        'and people read the word): write true, or "yes" to keep the word' + NO_SCHEMA]


@pytest.mark.parametrize("front", [
    'code: "010"\n', "code: '0x1F'\n",  # quoted
    "code: |\n  010\n", "answer: >\n  no\n",  # block scalars
    "code: !!int 010\n", "answer: !!bool no\n", "answer: !!str no\n",  # tagged
    "010: code\n", "no: answer\n", "map: {0x1F: a, yes: b}\n",  # keys
    "n: 10\n", "n: -3\n", "n: +5\n", "n: 0\n", "n: 1.5\n", "n: 0.50\n", "n: 1.0e+5\n",
    "n: .5\n", "b: true\n", "b: False\n", "b: TRUE\n", "d: 2026-03-19\n",  # as YAML 1.2
    "w: y\n", "w: n\n", "w: yEs\n", "w: 08\n", "w: 0o17\n", "w: 1e5\n", "w: 0:30\n",  # text
    "a: &x 10\nb: *x\n", "n: ~\n", "n: null\n",
])
def test_values_read_as_written_say_nothing(kb, front):
    assert warnings(kb, front) == []


def test_an_anchored_value_is_named_once_where_it_is_written(kb):
    assert warnings(kb, "a: &x 010\nb: [*x, *x]\nc: *x\n") == [
        W.format("9:7") + 'a: 010 is read as 8 (YAML 1.1 reads a number with a leading 0 as '
        'octal), not as written: write a: "010" to keep the text, or a: 8 for the number (kb '
        "check --fix leaves it: other values repeat it (&x): quote it by hand if they all mean "
        "text)"]


def test_a_schema_finding_that_names_the_spelling_is_not_said_twice(kb, tmp_path):
    """`title: no` is an fm-type error that says how `no` was written: one finding; a
    number's fm-type error ("expected string, got int") does not say why, so the warning
    stays; the results cache gives the same findings on the next run."""
    front = "section: 1:30\nlocation: 010\n"
    (kb / "knowledge" / "a.md").write_text(HEAD.replace("Generated", "no") + front + BODY,
                                           encoding="utf-8")
    expected = [
        "knowledge/a.md:2:1: error: fm-type: title: expected string, got bool (written 'no', "
        'which YAML reads as false; quote it, "no", to keep the word)',
        "knowledge/a.md:9:1: error: fm-type: section: expected string, got int",
        W.format("9:10") + "section: 1:30 is read as 90 (YAML 1.1 reads numbers joined by ':' "
        'in base 60), not as written: write section: "1:30" to keep the text, or section: 90 '
        "for the number" + QUOTED,
        "knowledge/a.md:10:1: error: fm-type: location: expected string, got int",
        W.format("10:11") + "location: 010 is read as 8 (YAML 1.1 reads a number with a "
        'leading 0 as octal), not as written: write location: "010" to keep the text, or '
        "location: 8 for the number" + QUOTED]
    for _ in range(2):  # the second run reads the results cache
        res = CliRunner().invoke(main, ["check"])
        assert res.exit_code == 1 and res.stdout.splitlines() == expected


def test_lenient_and_json_keep_it_a_warning(kb):
    code, out = check(kb, "code: 010\n", "--no-cache", "--lenient", "--json")
    assert code == 0 and '"code": "yaml-1.1-value"' in "\n".join(out)
    assert '"level": "warning"' in "\n".join(out) and '"line": 9' in "\n".join(out)


# YAML 1.2's core schema, as the spec writes it: what a YAML 1.2 reader (and JSON) reads
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
                         r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")
_CORE_BOOL = {"true", "True", "TRUE", "false", "False", "FALSE"}


def core_12(text: str) -> object:
    if text in _CORE_BOOL:
        return text.lower() == "true"
    if _CORE_INT.fullmatch(text):
        return int(text, 0) if text[:2] in ("0o", "0x") else int(text)
    if _CORE_FLOAT.fullmatch(text):
        return float(text.replace(".", "", 1)) if text.lstrip("+-")[1:2].isalpha() \
            else float(text)
    return text


def as_written(text: str, read: object) -> bool:
    """Whether YAML 1.1 reads `text` (as `read`) as YAML 1.2 does, written as that value is
    written (no 0x, 0b, leading 0, .inf or .nan)."""
    if isinstance(read, str) or read is None:
        return True
    core = core_12(text)
    if type(core) is not type(read) or (core != read and read == read):
        return False
    digits = text.lstrip("+-")
    return not (digits[:2] in ("0x", "0b") or digits[:1] == "0" and len(digits) > 1
                and isinstance(read, int) or digits[:1] == "." and digits[1:2].isalpha())


SCALARS = st.text(alphabet="0123456789_:.+-xobeEinfaNYyesnOT", min_size=1, max_size=8) \
    | st.sampled_from(["yes", "No", "ON", "off", "true", "FALSE", "y", ".inf", "-.Inf",
                       ".nan", "0x1F", "0b11", "010", "1:30", "1_0", "1.5", "00", "0",
                       "1_.0e+99", "1_.0e+999", "0x" + "f" * 38])


def _read(text: str) -> object:
    """What PyYAML reads for `k: text`, `...` (an Ellipsis) when it reads no such value."""
    try:
        value = yaml.safe_load(f"k: {text}\n")
    except Exception:  # noqa: BLE001 - PyYAML's int constructor raises ValueError on 0b_
        return ...
    return value["k"] if isinstance(value, dict) and list(value) == ["k"] else ...


@settings(max_examples=600, deadline=None)
@given(SCALARS)
def test_it_warns_exactly_where_yaml_11_reads_otherwise_and_its_fix_holds(text):
    """A warning iff YAML 1.1 does not read the value as YAML 1.2 reads it as written;
    writing what the warning says to keep the text gives the text, and writing the value it
    names gives the same value, each without a warning."""
    read = _read(text)
    if read is ... or "\n" in text or text != text.strip():
        return
    problems = _problems(f"k: {text}\n")
    assert bool(problems) != as_written(text, read), (text, problems)
    if not problems:
        return
    ((code, line, col, message),) = problems
    assert (code, line, col) == ("yaml-1.1-value", 2, 4)
    fixes = re.findall(r'k: ("[^"]*"|[^\s,]+)', message.partition(": write ")[2])
    assert fixes and fixes[0] == f'"{text}"' or isinstance(read, bool), (text, message)
    for fix in fixes:
        assert not _problems(f"k: {fix}\n"), (text, fix)
        got = parse_source(f"---\nk: {fix}\n---\n", Path("a.md"), "a.md").meta["k"]
        want = text if fix.startswith('"') else read
        assert type(got) is type(want) and got == want, (text, fix, got)


def _problems(front: str) -> list[tuple[str, int, int, str]]:
    return yaml11_problems(parse_source(f"---\n{front}---\n", Path("a.md"), "a.md"))


@pytest.mark.parametrize("value", ["0" + "7" * 300_000, "0x" + "f" * 300_000,
                                   "1" * 63, "1_" * 150_000 + "1"])
def test_a_long_value_is_named_in_linear_time(value):
    start = time.thread_time()
    problems = _problems(f"k: {value}\n")
    assert time.thread_time() - start < 2.0
    for _, _, _, message in problems:  # a long value is named, not quoted whole
        assert len(message) < 400, message[:100]


def test_many_values_are_read_in_linear_time():
    """19,000 list items (under the 20,000-node limit), each a warning, and the same value
    through 19,000 aliases (one warning, at its anchor)."""
    start = time.thread_time()
    assert len(_problems("k: [" + ", ".join(["010"] * 19_000) + "]\n")) == 19_000
    assert len(_problems("a: &x 010\nk: [" + ", ".join(["*x"] * 19_000) + "]\n")) == 1
    assert time.thread_time() - start < 5.0
