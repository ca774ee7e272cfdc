"""The check stage (`kb check`, the pre-commit hook, CI): front matter against the JSON
Schemas (`frontmatter`), paths and links (`links`), content and formulas (`content`),
decision tables (`decision_tables`), the scan cache (`cache`), `--fix` (`fix`), verified
documents changed after their review (`verification`, inside Git), and the engine that runs
them over files in parallel (`engine`).

May import markdown, render, decision, review, provenance, findings, corpus, schemas, config,
errors and fsutil;
never build, index, query, ship or the CLI.
"""
