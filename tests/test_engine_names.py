"""The names kb gives Milvus are names a Milvus server takes (issue 14). milvus-lite takes
more than Milvus Standalone or Distributed does (作物, kb-staging, 1st as an alias): Milvus
names collections, aliases and databases with ASCII letters, digits and _ only, not
starting with a digit, at most 255 characters (milvus.io/docs/limitations.md, "Naming
rules"). Every collection kb makes, for any release tag (Chinese ones too), is such a
name; an alias given with --alias that is not is refused in one line before anything
connects (a publish loaded the whole release, then the server refused the alias)."""

from __future__ import annotations

import itertools
import re

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


@given(st.one_of(st.text(max_size=300), st.from_regex(DOCUMENTED, fullmatch=True)))
def test_an_alias_is_taken_exactly_when_milvus_takes_it(alias):
    assert milvus_name(alias) == documented(alias)
    if documented(alias):
        assert check_alias(alias) == alias
    else:
        with pytest.raises(UsageError, match="bad --alias"):
            check_alias(alias)
    assert documented(ALIAS)


@pytest.mark.parametrize("alias", ["作物-华北", "kb-staging", "1st", "crops north", "x" * 256])
@pytest.mark.parametrize("command", [["publish"], ["rollback"], ["query", "小麦赤霉病"]])
def test_an_alias_milvus_refuses_is_one_line_before_connecting(alias, command):
    """Port 1 answers nothing: the refusal comes before any connection is tried (a publish
    loaded the whole release first, then a Milvus server refused ``create_alias``)."""
    res = CliRunner().invoke(main, [*command, "--engine", "milvus://127.0.0.1:1/kb",
                                    "--alias", alias])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kb: error: bad --alias {alias!r}: "), lines
