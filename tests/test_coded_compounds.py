"""A name with digits and a word after it by a hyphen (``Rad53-dependent``, ``S3-compatible``,
``x86-based``) is one token, so a question writing it met only a passage writing the same
compound: where the knowledge names the code alone ("depends on Rad53", "an S3 bucket"), the
question's rarest word was an unknown word and the passage was ranked on the rest
(kbtools.query.compounds.coded_compound, `expand`)."""

from __future__ import annotations

import pytest

from kbtools.index.reader import open_index
from kbtools.query.compounds import coded_compound
from kbtools.query.search import search
from tests.kbfixtures import built_pages

SECTIONS = [
    ("Histone turnover", "Histone degradation depends on the checkpoint kinase Rad53."),
    ("Proteasome", "Free histones are degraded by a proteasome mechanism in the nucleus."),
    ("Object storage", "Backups can go to any S3 bucket: give the endpoint and the keys."),
    ("Backup targets", "Backups go to local disks or to network storage; object storage "
                       "targets need an endpoint."),
    ("Build hosts", "Only x86 hosts build the installers."),
    ("Build matrix", "Release binaries are built on the machines of the build matrix."),
    ("云存储", "备份可以写入任意 S3 存储桶，填写端点和密钥即可。"),
    ("本地存储", "备份可以写入本地磁盘或网络存储，对象存储需要填写端点。"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("coded"), SECTIONS))


def test_which_tokens_are_a_coded_name_and_its_words():
    assert coded_compound("rad53-dependent") == ("rad53", ("dependent",))
    assert coded_compound("moz-tif2-induced") == ("moz-tif2", ("induced",))
    assert coded_compound("mir-21-induced") == ("mir-21", ("induced",))
    assert coded_compound("x86-based") == ("x86", ("based",))
    assert coded_compound("th17-like-cells") == ("th17", ("like", "cells"))
    # values, names without digits, short or stop-word tails, codes alone: none
    for token in ("10-fold", "3-dimensional", "covid-19", "2026-03-based", "tikv-server",
                  "python3-dev", "utf8mb4-bin", "ipv6-only", "il-17a", "rs-485", "e-17",
                  "p53", "tidb-v6"):
        assert coded_compound(token) is None, token


@pytest.mark.parametrize(("question", "title", "written"), [
    ("Are free histones degraded by a Rad53-dependent mechanism?", "Histone turnover",
     "rad53-dependent"),
    ("can backups go to S3-compatible storage", "Object storage", "s3-compatible"),
    ("are the installers built on x86-based machines", "Build hosts", "x86-based"),
    ("备份可以写入 S3-compatible 存储桶吗", "云存储", "s3-compatible"),
])
def test_a_coded_compound_finds_the_passage_naming_its_code(index, question, title, written):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer, res.reason
    assert res.results[0].title == title, [r.title for r in res.results]
    assert not [t for t in res.filters.unknown_terms if "-" in t]  # the compound is known
    shown = [s for s in res.filters.expanded if s["from"] == "spelling"]
    assert shown and shown[0]["term"] == written
    assert index.bm25.tok(written.split("-")[0])[0] in shown[0]["expanded"]


def test_a_compound_whose_code_the_knowledge_lacks_stays_unknown(index):
    """NOX2 is nowhere in the knowledge: ``NOX2-independent`` is not searched as
    ``independent`` alone, and stays an unknown word."""
    res = search(index, "histones degraded by a NOX2-independent mechanism", k=3, mode="bm25")
    assert not [s for s in res.filters.expanded if s["from"] == "spelling"]
    assert "NOX2-independent" in res.filters.unknown_terms
