"""Questions as field users paste them (a log, a traceback). Pastes built from the example knowledge's
documents (the API authentication page's error table), the shipped models."""

from __future__ import annotations

from kbtools.index.reader import open_index
from kbtools.query.search import search

LOG = "\n".join([
    "2026-03-18 14:00:01 INFO fg_agent.uploader queue_depth=12 device_id=dev-0042 state=E01",
    "2026-03-18 14:00:02 INFO fg_agent.clock ntp_offset_ms=4 client_id=field-7"
    " grant_type=client_credentials",
    "2026-03-18 14:00:03 WARN fg_agent.uploader retry_count=1 expires_in=3600"
    " access_token=eyJhbGciOi",
    "2026-03-18 14:00:04 ERROR fg_agent.uploader POST /v1/observations -> 401 token_expired:"
    " The token is older than 3600 s, request a new token",
])


def test_no_unranked_identifier_holder_outranks_the_ranked_evidence(example_index):
    """The log names E01 among its many identifiers (state=E01): the Chinese E01 row, which
    neither BM25 nor the English question's vectors ranked (score 0), was promoted as *about*
    one of the question's identifiers above the ranked answers. A chunk no retriever found
    is promoted only when it holds half of the question's specific identifiers."""
    res = search(open_index(example_index), LOG, k=5, keep_results=True)
    unranked = [r.rank for r in res.results
                if r.why["bm25_rank"] is None and r.why["vector_rank"] is None]
    assert all(rank > len(res.results) - len(unranked) for rank in unranked), \
        [(r.rank, r.score, r.doc) for r in res.results]
