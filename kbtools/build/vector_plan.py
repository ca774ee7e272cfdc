"""Which chunks get vectors of their own, and from which models.

A section chunk is embedded with the base model (so a question in any language can reach
it) plus the model configured for its language, when its document is in that language. A
finer chunk whose lines (a code block's or formula's own lines: not its context lines) lie
inside the part of its parent section that the section's embedded text carries is not
embedded, except the kinds in `OWN_VECTOR_KINDS`: the parent's vector already carries its
text, so the chunk shares it. Its record lists no models (``"models": []``) and names the
parent in ``extra["parent"]``; the query side scores it by the parent's similarity
(`kbtools.query.inherit`), while BM25 still scores it on its own text, so a question that
names one block still ranks that block above the rest of its section. A section's embedded
text stops at `ChunkConfig.embed_cap` characters: a block after that point is not in the
section's vector at all, so it keeps a vector of its own.

List items and table rows keep vectors of their own: each is a statement of its own (an
answer, a step, a record describing one thing), and a question about one of them is closer
to it than to a section listing several — its section's vector is diluted across them. On
tidb_faq_zh three in four list items found by the vector search are closer to the question
than their section, and sharing their section's vector cost hybrid nDCG@10 0.9698 →
0.9665; on aliyun_ecs_zh sharing table rows lost gold pages whose one matching row was the
evidence ("按量付费怎么计费" → the 按量付费 row of a billing table: nDCG@10 0.3873 → 0.3837,
Hit@10 0.6647 → 0.6474; sharing only rows under 80 characters still lost that row, 79
characters long, and with it 0.3847 / 0.659). Tables, code, formulas, diagrams and images
share without loss (benchmarks/README.md); sharing those is what saves the embedding work.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbtools.build.chunk_text import ChunkConfig
from kbtools.build.records import Chunk
from kbtools.config import Config
from kbtools.index.tokenize import language_of

# finer chunks that keep vectors of their own even inside their section (see above)
OWN_VECTOR_KINDS = frozenset({"list_item", "table_row"})
PLAN_VERSION = 5  # part of the parse cache's key: bump when the plan of a chunk changes


def models_for(text: str, cfg: Config, doc_lang: str | None = None) -> list[str]:
    """Embedding models for one chunk with a vector of its own: the base model for every
    chunk (so any question, in any language, can reach it) plus the model configured for
    the chunk's language when that is its document's language too (`doc_lang`; None: any).

    A command listing in a Chinese page reads as English, yet the page is Chinese: a second
    model there only costs (on a Chinese corpus it loads torch for a few hundred such
    sections, and English questions would then search those sections alone)."""
    emb = cfg.section("embedding")
    lang = language_of(text)
    extra = emb.get("languages", {}).get(lang) if doc_lang in (None, lang) else None
    return sorted({emb["model"], extra} - {None})


# the lines of a code block or formula without the context line before and after it
CORE_LINES = ("code_lines", "formula_lines")


def core_lines(chunk: Chunk) -> tuple[int, int]:
    """The lines a finer chunk is about: a code block's or formula's own lines (its context
    lines may belong to the next section), else all its lines."""
    for key in CORE_LINES:
        span = chunk.extra.get(key)
        if isinstance(span, list) and len(span) == 2:
            return int(span[0]), int(span[1])
    return chunk.line_start, chunk.line_end


def carried_through(section: Chunk, cap: int) -> int:
    """The last line of `section` whose text its embedded text carries in full (the
    embedded body is the section's text cut at `cap` characters)."""
    if len(section.text) <= cap:
        return section.line_end
    return section.line_start + section.text[:cap].count("\n") - 1  # the cut line is partial


def shares_parent_vector(chunk: Chunk, parents: dict[str, Chunk], cap: int) -> bool:
    """A finer chunk, not of `OWN_VECTOR_KINDS`, whose lines (`core_lines`) lie inside the
    lines its parent section's embedded text carries (`carried_through`, at `cap`)."""
    parent = parents.get(str(chunk.extra.get("parent") or ""))
    if chunk.kind == "section" or chunk.kind in OWN_VECTOR_KINDS or parent is None:
        return False
    first, last = core_lines(chunk)
    return parent.line_start <= first and last <= carried_through(parent, cap)


def plan_models(chunks: Sequence[Chunk], cfg: Config,
                doc_lang: str | None = None) -> list[list[str]]:
    """Per chunk of one document (in order, the document's language `doc_lang`), the
    models it gets a vector from (`models_for`); an empty
    list for a chunk that shares its parent's vector (unless kb.toml says
    ``[embedding] fine_vectors = "own"``)."""
    if cfg.get("embedding.fine_vectors") == "own":
        return [models_for(c.embed_text, cfg, doc_lang) for c in chunks]
    parents = {c.id: c for c in chunks if c.kind == "section"}
    cap = ChunkConfig.from_config(cfg).embed_cap
    return [[] if shares_parent_vector(c, parents, cap)
            else models_for(c.embed_text, cfg, doc_lang) for c in chunks]
