"""A code typed another way than the knowledge writes it (kbtools.query.codes): E017, E0017 or
E-017 for the fault-code table's E17, ERR9007 or Error9007 for ``ERROR 9007 (HY000)``. As an
unknown word it found nothing and the question was "no answer"; now a question word the
index does not hold is searched, and looked for as an identifier, in the index's spelling of
the code. A code the index holds as written (p53, E17) is left exactly as it is: reading
gene names in every spelling re-ranked scifact questions (docs/retrieval.md)."""

from __future__ import annotations

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query.codes import (
    code_parts,
    joined_spellings,
    spaced_codes,
    split_spellings,
    written_apart,
)
from kbtools.query.expansion import expand, index_spellings, joined_code
from kbtools.query.identifiers import identifiers, is_about, match_level
from kbtools.query.search import search
from kbtools.query.specific import specific_identifiers
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM


def test_what_is_a_code():
    assert code_parts("E017") == code_parts("e17") == code_parts("E-17") == ("e", "17")
    assert code_parts("utf8mb4") is None and code_parts("HX260A") is None
    assert code_parts("E170") != code_parts("E17")
    assert "e17" in joined_spellings("E017") and "error9007" in joined_spellings("ERR9007")
    assert "e0017" in joined_spellings("e17") and "e170" not in joined_spellings("e17")
    assert split_spellings("err9007") == [("err", "9007"), ("error", "9007")]


@pytest.mark.parametrize(("token", "texts", "others"), [
    ("err9007", ["ERROR 9007 (HY000)", "Error 9007", "报错 ERR 09007。"],
     ["error 9007 in prose", "ERROR 90070", "ERRNO 9007", "[kv:9007]", "xERROR 9007",
      "ERROR 9007.5", "ERROR9007"]),
    ("e017", ["E 17 报警", "(E 17)"], ["e 17", "E 170", "E 17.5", "SE 17"]),
])
def test_a_code_written_apart(token, texts, others):
    pattern = written_apart(token)
    assert pattern is not None
    assert all(pattern.search(t) for t in texts), [t for t in texts if not pattern.search(t)]
    assert not any(pattern.search(t) for t in others), [t for t in others if pattern.search(t)]


@pytest.fixture(scope="module")
def example(example_index):
    return open_index(example_index)


@pytest.mark.parametrize("code", ["E017", "E0017", "E-017", "e017"])
def test_a_code_typed_otherwise_finds_the_row_the_table_writes(example, code):
    for q in (code, f"{code} 报警后怎么复位？"):
        res = search(example, q, k=3)
        assert not res.no_answer, q
        top = res.results[0]
        assert top.kind == "table_row" and top.text.startswith("故障码: E17"), (q, top.text[:40])


@pytest.mark.parametrize("code", ["E170", "E99", "E099"])
def test_a_code_the_knowledge_lacks_is_still_no_answer(example, code):
    assert search(example, f"{code} 报警后怎么复位？", k=3).no_answer, code


DOC = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
SECTIONS = [
    ("Error codes", "* Error Number: 9007\n\n  The message begins with `ERROR 9007 (HY000) : "
                    "Write conflict`. Retry the transaction; see the optimistic transaction "
                    "page.\n\n* Error Number: 8027\n\n  The table schema version is outdated."),
    ("Transactions", "Optimistic transactions check for conflicts at commit time."),
    ("Backups", "A backup job writes its files to external storage every night, k 164 "
                "files on average (an error of 2 percent)."),
    ("Upgrades", "Upgrade one node at a time and keep the previous binary."),
    ("Go client", "Check every call's error:\n\n```go\nrows, err := db.Query(q)\n"
                  "if err != nil {\n    return err\n}\n```\n\nand close the rows (err "
                  "is nil on success)."),
    ("Tumour suppressors", "The p53 protein stops the cell cycle after DNA damage."),
    ("Variants", "The P-53 variant of the assay and the p053 probe differ in length."),
    ("Aircraft", "The Zlin Z 42 is a two-seat trainer; the first Z42 flew in 1967."),
    ("Ports", "The status port listens on 9999; a CPU of four cores serves it."),
    ("Uploads", "A request body over the limit is refused:\n\nHTTP status: 413\n\n"
                "Send smaller bodies."),
]


@pytest.fixture(scope="module")
def errors_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("codes")
    repo = make_repo(root, docs={f"knowledge/db-{n}.md": DOC.format(title=h, body=b)
                                 for n, (h, b) in enumerate(SECTIONS)})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    return open_index(repo / "dist")


@pytest.mark.parametrize("question", ["ERR9007", "Error9007 how to fix", "err-9007 retry"])
def test_an_error_code_written_as_one_word_finds_error_n(errors_index, question):
    """ERR9007 was one unknown word (a code the knowledge never mentions: no answer); the
    documentation writes ``ERROR 9007``: the code is searched as those two words."""
    res = search(errors_index, question, k=3)
    assert not res.no_answer and res.results[0].title == "Error codes", question
    assert not {"err9007", "error9007", "err-9007"} & set(res.filters.unknown_terms or ())
    assert specific_identifiers(errors_index, question) == ["error 9007"]


def test_a_code_as_two_words_is_searched_in_the_prefix_the_knowledge_writes(errors_index):
    """The index holds err too (Go code's ``if err != nil``): searching it as well ranked
    the Go client page above the error's."""
    assert "err" in errors_index.bm25.vocab
    exp = expand(errors_index, "ERR9007", [])
    assert [s["expanded"] for s in exp.shown] == [["error", "9007"]]
    assert "err" not in exp.terms
    assert search(errors_index, "ERR9007", k=3).results[0].title == "Error codes"


def test_a_code_number_the_knowledge_lacks_is_not_respelled_into_an_answer(errors_index):
    assert search(errors_index, "ERR9999 how to fix", k=3).no_answer


def test_index_spellings_of_a_code_as_two_words(errors_index):
    assert index_spellings(errors_index, "err9007") == (["error", "9007"], ["9007"])
    assert index_spellings(errors_index, "err9007", split=False) == ([], [])
    assert index_spellings(errors_index, "err9999") == ([], [])
    # the index holds k and 164, and 2, but no chunk writes K 164 or ERROR 2: no code there
    assert index_spellings(errors_index, "k164") == ([], [])
    assert index_spellings(errors_index, "error2") == ([], [])


def test_a_code_the_index_holds_as_written_is_left_alone(errors_index):
    """p53 is a token of the index: it is searched and matched as written, not also as the
    P-53 or p053 the index holds too (as main did before codes had spellings)."""
    vocab = errors_index.bm25.vocab
    assert {"p53", "p-53", "p053"} <= set(vocab)
    assert index_spellings(errors_index, "p53") == ([], [])
    exp = expand(errors_index, "What does p53 do?", [])
    assert not [s for s in exp.shown if s["from"] == "spelling"]
    assert not {"p-53", "p053"} & set(exp.terms)
    assert specific_identifiers(errors_index, "What does p53 do?") == ["p53"]
    # the same code typed in a spelling the index lacks is read in the index's spellings
    assert set(index_spellings(errors_index, "p0053")[0]) == {"p53", "p-53", "p053"}


def test_a_code_typed_as_two_words():
    """A display code typed with a space: capitals, or Error/Err with an initial capital;
    not words before numbers in prose."""
    assert spaced_codes("E 17 报警 ERROR 9007 Error 1105 Err 5 兹林Z 42是") == [
        ("E", "17"), ("ERROR", "9007"), ("Error", "1105"), ("Err", "5"), ("Z", "42")]
    assert spaced_codes("Table 3, step 2, in 2 days, e 17, E 17.5, E 170x, SE-E 17x") == []
    assert identifiers("ERROR 9007 怎么处理") == ["ERROR 9007"]
    assert identifiers("Table 3 lists the top 10 in 2 steps") == []


def test_a_code_typed_as_two_words_is_held_whole_and_stated_on_its_key_line():
    """``ERROR 9007`` as an identifier: held by a text writing it so (not ERROR 90070), and
    *about* a text whose line keyed by its prefix states its number (``* Error Number:
    9007``): the entry explaining the error ranks above a log quoting another one."""
    entry = "* Error Number: 8027\n\n  The table schema version is outdated."
    assert is_about(match_level(["ERROR 8027"], entry))
    assert is_about(match_level(["Error 8027"], "错误码 Error: 08027"))
    assert match_level(["ERROR 9007"], "```\nERROR 9007 (HY000): Write conflict\n```") == 2
    assert match_level(["ERROR 9007"], "ERROR 90070 (HY000)\n* Error Number: 90070") == 0
    assert match_level(["ERROR 9007"], "* Error Number: 9007 and more") == 0
    assert match_level(["E 17"], "E 170 报警") == 0


def test_a_code_typed_with_a_space_finds_the_row_the_table_writes(example):
    """The display shows ``E 17``; the table writes E17. Both words unknown: no answer."""
    for q in ("E 17", "E 17 报警后怎么复位？", "HX-260 报 E 17 怎么办"):
        res = search(example, q, k=3)
        assert not res.no_answer, q
        top = res.results[0]
        assert top.kind == "table_row" and top.text.startswith("故障码: E17"), (q, top.text[:40])
        assert {"term": "E 17", "expanded": ["e17"], "from": "spelling"} in res.filters.expanded
    assert specific_identifiers(example, "E 17 报警") == ["e17"]


@pytest.mark.parametrize("code", ["E 99", "E 170", "E 099"])
def test_a_code_the_knowledge_lacks_typed_with_a_space_is_no_answer(example, code):
    """``E 99 报警怎么处理`` was answered by the page on alarms that return after a reset:
    the code, nowhere in the knowledge, is an unknown code as E99 typed whole is."""
    res = search(example, f"{code} 报警怎么处理", k=3)
    assert res.no_answer, code
    assert res.filters.unknown_terms == (code,) and res.not_in_knowledge == (code,)


def test_a_code_the_index_holds_as_two_words_is_not_joined(errors_index):
    """Z 42 is written apart (and Z42 too): searched as written; ERROR 9007 is written
    apart and never joined; K 164 neither joined (no k164) nor an unknown code (both words
    known)."""
    assert joined_code(errors_index, "Z", "42") == []
    assert joined_code(errors_index, "ERROR", "9007") == []
    assert joined_code(errors_index, "K", "164") == []
    assert joined_code(errors_index, "E", "99") is None
    assert not [s for s in expand(errors_index, "Zlin Z 42", []).shown if s["from"] == "spelling"]


def test_a_code_whose_two_words_no_chunk_writes_together_is_an_unknown_code(errors_index):
    """``ERROR 9999`` was answered by another error's entry: the index holds ERROR and 9999
    (a port number), but no chunk writes the code, apart or on a line keyed by its prefix.
    A code stated on a key line (``HTTP status: 413``, ``* Error Number: 8027``) is held; a
    prefix the knowledge writes no code with (CPU: ``CPU 96 核`` is a count) is no code's."""
    assert joined_code(errors_index, "ERROR", "9999") is None
    assert joined_code(errors_index, "Error", "9999") is None
    assert joined_code(errors_index, "HTTP", "413") == []
    assert joined_code(errors_index, "ERROR", "8027") == []
    assert joined_code(errors_index, "CPU", "9999") == []
    res = search(errors_index, "ERROR 9999 how to fix", k=3)
    assert res.no_answer and "ERROR 9999" in (res.filters.unknown_terms or ())
    assert res.not_in_knowledge == ("ERROR 9999",)
    held = search(errors_index, "HTTP 413 upload refused", k=3)
    assert not held.no_answer and held.results[0].title == "Uploads"
    assert held.not_in_knowledge == ()


def test_an_error_code_typed_as_two_words_is_a_specific_identifier(errors_index):
    assert specific_identifiers(errors_index, "ERROR 8027 怎么处理") == ["ERROR 8027"]
    res = search(errors_index, "ERROR 8027", k=3)
    assert not res.no_answer and res.results[0].title == "Error codes"


def test_a_code_typed_in_lower_case_with_a_space_is_joined_only_where_the_index_holds_it(
        example, errors_index):
    """``e 17`` typed on a phone is the display's E 17: joined where the index holds the
    joined code (E17) and not the two words; ``z 42`` (the index writes Z 42 apart), ``k 164``
    (no k164) and prose (``in 2``) stay as typed."""
    assert spaced_codes("e 17 and in 2", any_case=True) == [("e", "17"), ("in", "2")]
    for q in ("e 17", "e 17 报警后怎么复位？"):
        res = search(example, q, k=3)
        assert not res.no_answer, q
        top = res.results[0]
        assert top.kind == "table_row" and top.text.startswith("故障码: E17"), (q, top.text[:40])
        assert {"term": "e 17", "expanded": ["e17"], "from": "spelling"} in res.filters.expanded
    for q in ("zlin z 42 trainer", "k 164 files", "an error in 2 percent"):
        assert not [s for s in expand(errors_index, q, []).shown if s["from"] == "spelling"], q
    assert joined_code(errors_index, "z", "42") == []
    assert specific_identifiers(example, "e 17 报警") == ["e17"]
    assert specific_identifiers(errors_index, "zlin z 42 trainer") == []
