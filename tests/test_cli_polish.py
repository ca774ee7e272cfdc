"""What a new user trips over at the command line: mistyped commands get suggestions,
filters that would silently match nothing are errors, counts and line ranges read right,
and the generated CLI reference says `kb`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hostile import make_repo

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main, suggest
from kbtools.commands.query import render
from kbtools.config import load_config
from kbtools.errors import line_span, plural
from kbtools.index.reader import open_index
from kbtools.query.filters import parse_where
from kbtools.query.results import SearchFilters, SearchResponse
from kbtools.query.search import NO_ANSWER_REASON


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("polish"))
    build(load_config(repo), BuildOptions(progress=False))
    return repo / "dist"


def kb(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), prog_name="kb")
    return res.exit_code, res.output


@pytest.mark.parametrize(("typed", "hint"), [
    ("qeury", "Did you mean 'query'?"),
    ("stauts", "Did you mean 'status'?"),
    ("relase", "Did you mean one of: release, releases, read?"),
    ("rel", "Did you mean one of: release, releases?"),
    ("sycn", "Did you mean 'sync'?"),
    ("frobnicate", "See `kb --help` for the commands."),
])
def test_mistyped_command_suggests_close_matches(typed, hint):
    code, out = kb(typed, "x")
    assert code == 2
    assert out.splitlines()[-1] == f"Error: No such command {typed!r}. {hint}"


def test_subcommand_typos_and_options_still_work():
    code, out = kb("table", "evl")
    assert code == 2 and "Did you mean 'eval'?" in out
    assert kb("--version")[0] == 0 and kb("--help")[0] == 0
    code, out = kb("--no-such-option")
    assert code == 2 and "No such option" in out
    assert suggest("QUERY", ["query", "recent"]) == " Did you mean 'query'?"


@pytest.mark.parametrize(("where", "message"), [
    ("crop==x", "'==' is not an operator; use crop=VALUE"),
    ("crop=>x", "'=>' is not an operator"),
    ("crop=<x", "'=<' is not an operator"),
    ("crop!==x", "'!==' is not an operator"),
    ("crop>=<x", "'>=<' is not an operator"),
    ("crop=", "no value after '='"),
    ("crop= ", "no value after '='"),
    ("crop>>x", "'>>' is not an operator"),
    ("crop<>x", "'<>' is not an operator"),  # not "differs": != is
    ("crop><x", "'><' is not an operator"),
    ("crop~x", "use KEY=VALUE, KEY!=VALUE, KEY>=VALUE, KEY<=VALUE, KEY>VALUE or KEY<VALUE"),
    ("crop", "use KEY=VALUE"),
])
def test_where_mis_parses_are_errors(where, message):
    with pytest.raises(Exception, match=message.replace("(", r"\(")):
        parse_where([where])


def test_where_errors_at_the_cli_and_closed_sets(dist):
    for where, message in [("category==engineering", "'==' is not an operator"),
                           ("verified=maybe", "use verified=true or verified=false"),
                           ("verified>=true", "use verified=true or verified=false"),
                           ("kind=sections", "no chunk of kind 'sections' in this index; its kinds: "),
                           ("colour=red", "unknown --where key 'colour'")]:
        code, out = kb("query", "--index", str(dist), "pump seal", "--where", where)
        assert code == 2 and out.startswith("kb: error: ") and len(out.splitlines()) == 1, out
        assert message in out, (where, out)
    for where in ("category=engineering", "verified=false", "kind=section", "kind!=table",
                  "timestamp>=2026-01-01"):
        code, out = kb("query", "--index", str(dist), "pump seal", "--where", where, "--json")
        assert code == 0, (where, out)


def test_no_answer_and_single_line_citations_read_right(dist, capsys):
    index = open_index(dist)
    render(SearchResponse("q", index.release, SearchFilters(), reason=NO_ANSWER_REASON), False)
    out = capsys.readouterr().out
    assert out.startswith(f"No answer in the knowledge: {NO_ANSWER_REASON}. [local build @ ")
    assert "((" not in out and "))" not in out
    assert (plural(1, "document"), plural(2, "document"), plural(0, "file")) == (
        "1 document", "2 documents", "0 files")
    assert plural(1, "document has", "documents have") == "1 document has"
    assert (line_span(70, 70), line_span(3, 9), line_span(3, 9, "-")) == (
        "line 70", "lines 3–9", "lines 3-9")


def test_check_and_build_say_one_document(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "r")
    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["check", "knowledge"])
    assert res.exit_code == 0 and "1 document, 0 errors, 0 warnings" in res.stderr
    res = CliRunner().invoke(main, ["build", "-q"])
    assert res.exit_code == 0, res.output
    assert ": 1 document, " in res.stdout + res.stderr and "1 documents" not in res.output


def test_batch_where_object_with_a_list_is_any_of_it_and_an_object_an_error(dist, tmp_path):
    """A list in a ``where`` object was refused as never matching; it is any of its values,
    as ``category=engineering,x`` is (session 40); what is no value is still refused."""
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "pump seal", "where": {"category": "engineering"}}\n'
                     '{"query": "pump seal", "where": {"category": ["nothing", "engineering"]}}\n'
                     '{"query": "pump seal", "where": {"category": "nothing, engineering"}}\n',
                     encoding="utf-8")
    code, out = kb("query", "--index", str(dist), "--batch", str(batch), "--json")
    assert code == 0, out
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[1]["filters"]["where"] == ["category=nothing,engineering"]
    assert lines[1]["results"] == lines[0]["results"] != []
    assert lines[2]["no_answer"]  # one value, commas and all: no document holds it
    assert lines[2]["filters"]["where"] == ['category="nothing, engineering"']
    batch.write_text('{"query": "pump seal", "where": {"category": [{"a": 1}]}}\n',
                     encoding="utf-8")
    code, out = kb("query", "--index", str(dist), "--batch", str(batch), "--json")
    assert code == 2, out
    assert out.splitlines()[-1] == (f'kb: error: {batch}:1: "where" values must be text or '
                                    "numbers, or a list of them (any of which a document holds)")


def test_where_quotes_and_spaces_are_not_part_of_the_value():
    assert parse_where(['crop="小麦"', "crop = '玉米' ", "a>=1"]) == [
        ("crop", "=", "小麦"), ("crop", "=", "玉米"), ("a", ">=", "1")]
    with pytest.raises(Exception, match="no value"):
        parse_where(['crop=""'])


@pytest.mark.parametrize("where, parsed", [
    ("crop＝小麦", ("crop", "=", "小麦")), ("crop ＝ 小麦", ("crop", "=", "小麦")),
    ("crop！＝小麦", ("crop", "!=", "小麦")), ("size≥5", ("size", ">=", "5")),
    ("size ≤ 5", ("size", "<=", "5")), ("timestamp＞＝2026-01-01", ("timestamp", ">=", "2026-01-01")),
    ("crop\u3000＝\u3000小麦", ("crop", "=", "小麦")),
    ("title=a＝b", ("title", "=", "a＝b")),  # a value keeps its own full-width sign
])
def test_a_filter_whose_operator_a_chinese_input_method_typed_is_read(where, parsed):
    """`crop＝小麦` (the IME's ＝, ！＝, ＞＝, ≥ …) was refused as "bad filter": the operator
    is read as ASCII, the key and value as given."""
    assert parse_where([where]) == [parsed]


def test_a_full_width_filter_filters_as_its_ascii_form(dist):
    wide, narrow = (CliRunner().invoke(main, ["query", "--index", str(dist), "pump seal",
                                              "--json", "--where", f"category{op}engineering"])
                    for op in ("＝", "="))
    assert wide.exit_code == 0, wide.output
    assert json.loads(wide.stdout)["results"] == json.loads(narrow.stdout)["results"]
    assert json.loads(wide.stdout)["results"]


@pytest.mark.parametrize("args", [("query", "E17", "--index"), ("status", "--index"),
                                  ("recent", "--index"), ("serve", "--index")])
def test_a_path_too_long_for_the_file_system_is_a_one_line_usage_error(args, monkeypatch,
                                                                        tmp_path):
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))  # a crash log would land here
    code, out = kb(*args, "a" * 5000)
    assert code == 2, out
    assert out.startswith("kb: error: File name too long: ") and out.count("\n") == 1, out
    assert "aaaa" in out and len(out) < 200
    assert not (tmp_path / "home").exists() or not list((tmp_path / "home").rglob("*crash*"))
