"""The names kb gives Milvus are names a Milvus server takes (issue 14). milvus-lite takes
more than Milvus Standalone or Distributed does (作物, kb-staging, 1st as an alias): Milvus
names collections, aliases and databases with ASCII letters, digits and _ only, not
starting with a digit, at most 255 characters (milvus.io/docs/limitations.md, "Naming
rules"). Every collection kb makes, for any release tag (Chinese ones too), is such a
name; so is every alias: one given with --alias that is not (a knowledge base's own name,
农业知识) is made one, distinct for every name (`milvus.alias_name`), and every command
given the name reads that alias."""

from __future__ import annotations

import itertools
import re
import unicodedata

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.engine.milvus import ALIAS, META_SUFFIX, check_alias, collection_name, milvus_name
from kbtools.engine.publish import NAMED_CANDIDATES, collection_candidates
from kbtools.errors import UsageError

# the rule as the Milvus documentation states it, written apart from kb's own
DOCUMENTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX = 255

TAGS = st.one_of(st.none(), st.text(max_size=300),
                 st.text(alphabet="作物华北小麦赤霉病发布版本-_. 0123456789vV", max_size=300))


def documented(name: str) -> bool:
    return len(name.encode("utf-8")) <= MAX and DOCUMENTED.fullmatch(name) is not None


@given(tag=TAGS, sha=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
       digest=st.text(alphabet="0123456789abcdef", min_size=8, max_size=8))
def test_every_collection_kb_makes_is_a_name_milvus_takes(tag, sha, digest):
    """The release's collection, its versions (`_v3`, a derivation digest, numbered from
    2) and each one's ``__meta``, whatever the tag: Chinese, spaces, dots, 300 characters."""
    name = collection_name(tag, sha)
    made = list(itertools.islice(collection_candidates(name, digest), NAMED_CANDIDATES + 98))
    for made_name in made + [m + META_SUFFIX for m in made]:
        assert documented(made_name), made_name


NAMES = st.one_of(st.text(max_size=300), st.from_regex(DOCUMENTED, fullmatch=True),
                  st.text(alphabet="农业知识设备维护作物华北-_. abc01", min_size=1, max_size=40))


@given(NAMES)
def test_every_alias_kb_uses_is_a_name_milvus_takes(alias):
    """A name Milvus takes is used as it is; any other (a knowledge base's own name,
    农业知识, kb-staging, 1st) as a Milvus name made of it: refused before, so a knowledge
    base named in Chinese had no alias of its own name."""
    assert milvus_name(alias) == documented(alias)
    if not alias.strip():
        with pytest.raises(UsageError, match="bad --alias"):
            check_alias(alias)
        return
    assert documented(check_alias(alias))
    assert (check_alias(alias) == alias) == documented(alias)
    assert documented(ALIAS) and check_alias(ALIAS) == ALIAS


@given(NAMES, NAMES)
def test_names_milvus_refuses_get_aliases_of_their_own(a, b):
    """Two names get one alias only when they are one name (as typed on macOS, decomposed,
    too): 农业知识 and 设备维护 both have no ASCII part, and must not meet in one alias."""
    a, b = a.strip(), b.strip()
    if not a or not b or documented(a) or documented(b):
        return
    same = unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    assert (check_alias(a) == check_alias(b)) == same


def test_a_name_is_one_alias_however_it_is_typed():
    assert check_alias("农业知识") != check_alias("设备维护")
    assert check_alias("Café crème") == check_alias(unicodedata.normalize("NFD", "Café crème"))
    assert check_alias(" 农业知识 ") == check_alias("农业知识")
    assert check_alias("kb-staging").startswith("kb_kb_staging_")


@pytest.mark.parametrize("alias", ["", "  "])
@pytest.mark.parametrize("command", [["publish"], ["rollback"], ["query", "小麦赤霉病"]])
def test_a_blank_alias_is_one_line_before_connecting(alias, command):
    """Port 1 answers nothing: the refusal comes before any connection is tried."""
    res = CliRunner().invoke(main, [*command, "--engine", "milvus://127.0.0.1:1/kb",
                                    "--alias", alias])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: bad --alias: give a name"), lines
