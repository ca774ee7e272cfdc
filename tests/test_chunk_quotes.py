"""A long paragraph is cut at sentence ends, but not inside a short quotation.

Chinese prose quotes speech and rules of several sentences (老王说：“这药不能和碱性农药混用。
否则会失效。”): a chunk ended after “混用。” and the next began with 否则会失效。”, so the rule was
split between two chunks and neither held it whole. A quotation (“…”, 「…」, 『…』) shorter
than the target size is now one unit; a longer one is still cut at its sentences."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.corpus import parse_source
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import SMALL, check_invariants

REL = "knowledge/t/quotes.md"
PAIRS = ("“”", "「」", "『』")


def _chunks(body: str, cfg: ChunkConfig):
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    return chunks


SPEECH = ("他说：“明天下雨。”然后离开了。她问：“真的吗？我不信！”……没有人回答……天色渐暗。"
          "老王说：“这药不能和碱性农药混用。否则会失效。”大家都记住了。")
CORNER = "规程写道：「先断电。再挂牌。最后验电。」值班员照做了。手册又说『压力过高时停机。检查阀门。』"
ENGLISH = ("The manual says: “Close the valve first. Then vent the line. Never reverse it.” "
           "The operator nodded. ")


@pytest.mark.parametrize("text", [SPEECH * 3, CORNER * 6, ENGLISH * 4, (SPEECH + ENGLISH) * 2],
                         ids=["speech", "corner", "english", "mixed"])
def test_no_chunk_is_cut_inside_a_short_quotation(text):
    chunks = [c for c in _chunks(f"# 标题\n\n{text}\n", SMALL) if c.kind == "section"]
    assert len(chunks) > 1  # the paragraph is cut
    for c in chunks:
        for opener, closer in PAIRS:
            depth = 0
            for ch in c.text:  # every quotation a chunk holds is opened and closed in it
                depth += (ch == opener) - (ch == closer)
                assert depth in (0, 1), (c.text, opener)
            assert depth == 0, (c.text, opener)
    words = set(re.findall(r"[\u4e00-\u9fff]+|[A-Za-z]+", text))
    assert words <= set(re.findall(r"[\u4e00-\u9fff]+|[A-Za-z]+", "".join(c.text for c in chunks)))


def test_a_quotation_longer_than_the_target_is_still_cut_at_its_sentences():
    long_quote = "“" + "检查油位是否正常，并记录读数。" * 20 + "”结束。"
    chunks = [c for c in _chunks(f"# 标题\n\n{long_quote}\n", SMALL) if c.kind == "section"]
    assert len(chunks) > 2
    assert all(len(c.text) <= SMALL.max_chars + len("# 标题\n\n") for c in chunks)


def test_an_unclosed_quotation_cuts_as_before():
    text = "他说：“先断电。" + "然后检查线路是否完好。" * 30
    chunks = [c for c in _chunks(f"# 标题\n\n{text}\n", SMALL) if c.kind == "section"]
    assert len(chunks) > 2
    assert all(len(c.text) <= SMALL.max_chars + len("# 标题\n\n") for c in chunks)
