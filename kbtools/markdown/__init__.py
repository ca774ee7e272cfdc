"""The one Markdown front end: a configured markdown-it parser, slugs, the document tree.

Used by check, build, decision tables and agents alike, so the gate checks exactly what the
build indexes. Imports nothing from kbtools but `corpus` and `errors`.
"""
