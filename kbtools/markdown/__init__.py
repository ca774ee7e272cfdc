"""The one Markdown front end: a configured markdown-it parser, slugs, the document tree.

`parser` (the one configured parser, heading text and slugs, the link policy), `frontend`
(`scan`: what `kb check` needs), `doctree` + `nodes` (`parse`: the tree the build chunks),
`mermaid`. Used by check, build, decision tables and agents alike, so the gate checks exactly
what the build indexes. Imports nothing from kbtools but `corpus` and `errors`.
"""
