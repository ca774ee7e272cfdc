"""A code typed another way than the knowledge writes it (kbtools.query.codes): E017, E0017, E-017
or E 17 for the fault-code table's E17, ERR9007 or Error9007 for ``ERROR 9007 (HY000)``. They
found nothing (an unknown word) and the question was "no answer"; now the words are searched
in the index's spelling and the identifier is looked for in every spelling of the code, while
E17 stays apart from E170, v5 from v5.4 and utf8mb4 is no code."""

from __future__ import annotations

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query.codes import code_parts, code_pattern, joined_spellings, spaced_codes
from kbtools.query.expansion import index_spellings
from kbtools.query.identifiers import match_level
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM


@pytest.mark.parametrize(("written", "same"), [
    ("E17", ["E17", "e17", "E-17", "E 17", "E017", "E0017", "e-017", "(E17)", "E17，"]),
    ("ERR9007", ["ERROR 9007 (HY000)", "Error 9007", "err9007", "ERR-9007", "Error9007"]),
    ("v5", ["v5", "V05", "v5 版本"]),
])
def test_a_code_is_found_in_each_of_its_spellings(written, same):
    pattern = code_pattern(written)
    assert pattern is not None
    assert all(pattern.search(text) for text in same), [t for t in same if not pattern.search(t)]


@pytest.mark.parametrize(("written", "other"), [
    ("E17", ["E170", "E17.5", "E17a", "SE17", "xE 17", "e 17 (prose: a lower-case word)"]),
    ("ERR9007", ["[kv:9007]", "ERRNO 9007", "ERROR 90070", "error 9007 in prose"]),
    ("v5", ["v5.4", "v5.0.1", "v50"]),
])
def test_another_code_or_a_version_is_not_the_code(written, other):
    pattern = code_pattern(written)
    assert pattern is not None
    assert not any(pattern.search(text) for text in other), [t for t in other
                                                             if pattern.search(t)]


def test_what_is_a_code():
    assert code_parts("E017") == code_parts("e 17") == code_parts("E-17") == ("e", "17")
    assert code_parts("utf8mb4") is None and code_parts("HX260A") is None
    assert code_parts("E170") != code_parts("E17")
    assert "e17" in joined_spellings("E017") and "error9007" in joined_spellings("ERR9007")
    assert spaced_codes("E 17 报警, ERR 9007 (HY000), TiDB 7, Linux 2, MySQL 5.7, top 10") == [
        "E 17", "ERR 9007"]


def test_a_heading_or_key_line_in_another_spelling_is_about_the_code():
    assert match_level(["E017"], "故障码: E17\n含义: 伺服过载") == 3
    assert match_level(["ERR9007"], "报错信息以 ERROR 9007 (HY000) 开头", "Error 9007") == 3
    assert match_level(["E17"], "E170 过热") == 0


@pytest.fixture(scope="module")
def example(example_index):
    return open_index(example_index)


@pytest.mark.parametrize("code", ["E017", "E0017", "E-017", "E 17", "e017"])
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
    ("Backups", "A backup job writes its files to external storage every night."),
    ("Upgrades", "Upgrade one node at a time and keep the previous binary."),
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


def test_a_code_number_the_knowledge_lacks_is_not_respelled_into_an_answer(errors_index):
    assert search(errors_index, "ERR9999 how to fix", k=3).no_answer


def test_index_spellings_of_a_code_as_two_words():
    vocab = {"error": 0, "9007": 1, "e17": 2}
    assert index_spellings(vocab, "err9007") == (["error", "9007"], ["9007"])
    assert index_spellings(vocab, "err9007", split=False) == ([], [])
    assert index_spellings(vocab, "e017") == (["e17"], ["e17"])
    assert index_spellings(vocab, "err9999") == ([], [])

