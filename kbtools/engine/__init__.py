"""Search engines a release can be published into, beyond the device's own files.

`milvus` publishes a verified release into a Milvus collection (dense vectors per model,
our BM25 as sparse vectors, chunk rows and filter fields) behind an alias, and opens it
for `kbtools.query.search` as a `KbIndex` whose candidates come from Milvus (`remote`).
`expr` turns ``--where`` filters into Milvus boolean expressions.
"""
