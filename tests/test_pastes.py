"""Questions as field users paste them (a log, a traceback): judged as a paste, not as a
question naming settings the knowledge lacks. Pastes built from the example knowledge's
documents (the API authentication page's error table), the shipped models."""

from __future__ import annotations

from kbtools.index.reader import open_index
from kbtools.query.search import search

TRACEBACK = """Traceback (most recent call last):
  File "/opt/fg-agent/agent_main.py", line 212, in upload_loop
    resp = self._session.post(url, json=batch, timeout=30)
  File "/opt/fg-agent/uploader.py", line 88, in post_batch
    resp.raise_for_status()
requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://ingest.example.com/v1/observations
error=token_expired: The token is older than 3600 s"""

LOG = "\n".join([
    "2026-03-18 14:00:01 INFO fg_agent.uploader queue_depth=12 device_id=dev-0042 state=E01",
    "2026-03-18 14:00:02 INFO fg_agent.clock ntp_offset_ms=4 client_id=field-7"
    " grant_type=client_credentials",
    "2026-03-18 14:00:03 WARN fg_agent.uploader retry_count=1 expires_in=3600"
    " access_token=eyJhbGciOi",
    "2026-03-18 14:00:04 ERROR fg_agent.uploader POST /v1/observations -> 401 token_expired:"
    " The token is older than 3600 s, request a new token",
])


def test_a_paste_is_answered_though_it_holds_the_users_own_names(example_index):
    """A traceback and an agent's log ending in the 401 token_expired the error table
    explains: that row was BM25's first, but the answer was "no answer", because the
    paste's own names (agent_main.py, self._session.post, queue_depth, retry_count) read
    as settings the knowledge never mentions. In a paste they are a small share of what it
    says; the paste is answered by the row."""
    idx = open_index(example_index)
    for paste in (TRACEBACK, LOG):
        res = search(idx, paste, k=5)
        assert not res.no_answer, paste[:60]
        top = res.results[0]
        assert top.doc.endswith("api-authentication.md") and "token_expired" in top.text


def test_a_typed_question_naming_an_unknown_setting_is_still_no_answer(example_index):
    """Two lines ("…怎么设置" then "谢谢") are no paste: the unknown setting is its subject."""
    idx = open_index(example_index)
    for q in ("E17 的 reset_delay_ms 参数怎么设置\n谢谢",
              "how do I set max_upload_retries for ingest"):
        assert search(idx, q, k=3).no_answer, q


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


JAVA = """com.acme.fieldgate.client.AuthException: 403 insufficient_scope: The token lacks a required scope
	at com.acme.fieldgate.client.HttpTransport.checkStatus(HttpTransport.java:214)
	at com.acme.fieldgate.client.HttpTransport.execute(HttpTransport.java:162)
	at com.acme.fieldgate.client.ObservationClient.upload(ObservationClient.java:88)
	at com.acme.fieldgate.sync.UploadWorker.runBatch(UploadWorker.java:57)
	at com.acme.fieldgate.sync.UploadWorker.run(UploadWorker.java:41)
	at java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)"""


def test_a_stack_trace_is_answered_by_the_row_holding_its_error_line(example_index):
    """A Java stack trace whose first line is the 403 insufficient_scope the error table
    explains: the row was first, but the answer was "no answer", because the frames' names
    (com.acme.fieldgate…, HttpTransport.java) carried more than half of the paste's weight
    and read as settings the knowledge never mentions. A best hit holding most of one line
    of a paste answers it, whatever its other lines weigh."""
    res = search(open_index(example_index), JAVA, k=5)
    assert not res.no_answer
    top = res.results[0]
    assert top.doc.endswith("api-authentication.md") and "insufficient_scope" in top.text


def test_a_paste_no_line_of_which_the_knowledge_holds_is_still_no_answer(example_index):
    """Frames and a message the knowledge lacks (a Java heap error, an Oracle TNS error): no
    best hit holds a line of them."""
    idx = open_index(example_index)
    for paste in (JAVA.replace("com.acme.fieldgate.client.AuthException: 403 insufficient_scope:"
                               " The token lacks a required scope",
                               'Exception in thread "main" java.lang.OutOfMemoryError: Java heap'
                               " space"),
                  "ORA-12154: TNS:could not resolve the connect identifier specified\n"
                  'ORA-06512: at "APP.PKG_ORDERS", line 42\nORA-06512: at line 1'):
        assert search(idx, paste, k=5).no_answer, paste[:50]
