"""Review: what `verified: true` means and who may set it.

Owns the verification semantics (`verification`: the verification fields, content vs
`[review] non_content_fields`, Reviewed-by trailers, verification events), the reviewer
policy (`policy`: reviewers per path, `judge_doc`, `check_range` for `kb review check`), what
a review still covers of a verified document's lines (`lapse`: the build's per-chunk
`verified`, `kb check`'s `verification-lapsed`), the history read once when many documents
are judged (`lineage`), `approve`, `pending`, the review diff (`diff`) and the review reading of history that
`kb history` and `kb recent` print (`history`).

Imports provenance, findings, config, corpus, schemas, errors and fsutil; never check, ship,
query, build or agents.
"""
