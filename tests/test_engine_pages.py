"""A release's blobs read back from a real Milvus (milvus-lite server) in pages: a Milvus
server bounds what one query returns (``maxOutputSize``, 100 MB by default), so
`parts.read_parts` must never ask for all of a release's files at once. The page size is
a parameter, so a few hundred KB of files make many pages here."""

from __future__ import annotations

import base64
import random

from kbtools.engine.milvus import META_SUFFIX, connect_url
from kbtools.engine.parts import read_parts
from kbtools.engine.rows import blob_rows
from tests.milvus_server import milvus  # noqa: F401 - fixture

COLLECTION = "kb_pages_test"


def store_meta(eng, parts):
    """A meta collection holding `parts`, as `kb publish` writes one."""
    pm = eng.pymilvus
    schema = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", pm.DataType.VARCHAR, is_primary=True, max_length=256)
    schema.add_field("part", pm.DataType.VARCHAR, max_length=64)
    schema.add_field("seq", pm.DataType.INT64)
    schema.add_field("data", pm.DataType.VARCHAR, max_length=65_535)
    schema.add_field("pad", pm.DataType.FLOAT_VECTOR, dim=2)
    meta = COLLECTION + META_SUFFIX
    eng.client.create_collection(meta, schema=schema)
    rows = blob_rows(parts)
    for i in range(0, len(rows), 64):
        eng.client.insert(meta, rows[i:i + 64])
    eng.client.flush(meta)
    ip = eng.client.prepare_index_params()
    ip.add_index("pad", index_type="FLAT", metric_type="L2")
    eng.client.create_index(meta, ip)
    eng.client.load_collection(meta)
    return len(rows)


def test_large_files_read_back_byte_identical_in_pages(milvus):  # noqa: F811
    eng = connect_url(milvus.url("pages"), create_db=True)
    rng = random.Random(7)  # incompressible bytes, as a PDF's are
    shipped = {f"data/source/manual-{n}.pdf": rng.randbytes(150_000 * n) for n in (1, 2, 3)}
    parts = {"manifest": "{}", "docs": [{"doc": "a.md"}], "vocab": {}, "chunk_table": {},
             "fields": {"use": "v0"},
             "files": {rel: base64.b64encode(b).decode("ascii") for rel, b in shipped.items()}}
    total = store_meta(eng, parts)
    returned: list[int] = []
    query = eng.client.query

    def counting(*args, **kwargs):
        rows = query(*args, **kwargs)
        if "data" in kwargs.get("output_fields", ()):
            returned.append(len(rows))
        return rows

    eng.client.query = counting
    got = read_parts(eng, COLLECTION, files=True, page_rows=4)
    assert {rel: base64.b64decode(v) for rel, v in got["files"].items()} == shipped
    assert got == parts
    assert total > 20 and sum(returned) == total and max(returned) <= 4
    returned.clear()
    assert read_parts(eng, COLLECTION, page_rows=4) == {k: v for k, v in parts.items()
                                                        if k != "files"}
    assert max(returned) <= 4


def test_the_parts_asked_for_are_the_only_ones_listed_and_read(milvus):  # noqa: F811
    """A check of a release's manifest (`publish._problem_of`) lists and reads the manifest's
    rows, not those of a release of many documents (its docs, vocabulary and files: here
    hundreds of rows)."""
    eng = connect_url(milvus.url("only"), create_db=True)
    rng = random.Random(11)
    docs = [{"doc": f"knowledge/d{n}.md", "text": rng.randbytes(400).hex()} for n in range(1500)]
    parts = {"manifest": '{"format": 1}', "docs": docs, "vocab": {f"t{n}": n for n in range(5000)},
             "chunk_table": {}, "fields": {"use": "v0"},
             "files": {"data/source/big.pdf": base64.b64encode(rng.randbytes(400_000)).decode()}}
    total = store_meta(eng, parts)
    listed: list[list[str]] = []
    read: list[int] = []
    query = eng.client.query

    def counting(*args, **kwargs):
        rows = query(*args, **kwargs)
        if "data" in kwargs.get("output_fields", ()):
            read.append(len(rows))
        else:
            listed.append([r["key"] for r in rows])
        return rows

    eng.client.query = counting
    assert read_parts(eng, COLLECTION, only=("manifest",), page_rows=4) == \
        {"manifest": parts["manifest"]}
    assert total > 20 and listed == [["manifest/000000"]] and read == [1]
    listed.clear()
    read.clear()
    got = read_parts(eng, COLLECTION, only=("manifest", "docs", "release"), page_rows=4)
    assert got == {"manifest": parts["manifest"], "docs": docs}  # a part not there: not asked
    assert {k.split("/")[0] for k in listed[0]} == {"manifest", "docs"}
    assert sum(read) == len(listed[0]) and max(read) <= 4
    eng.client.query = query
    assert read_parts(eng, COLLECTION, files=True) == parts  # every part, as before
