"""Words a person reads, in Chinese and English, keyed: a library error in Chinese by its
`KbError.key` (the web app's pages and API, and `kb read` / MCP `read` for a Chinese
asker), and the notes a read adds. Importable by `agents/` and `serve/` alike."""
