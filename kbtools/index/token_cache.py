"""What the tokenizer said of a text, kept between processes for the self-check.

The self-check (`kbtools.index.selfcheck`) proves a derived index's stored term ids by
tokenizing the checked chunks' texts again: a few thousand chunks, seconds on a device,
most of a one-document sync. The tokenizer is a pure function of its fingerprint (backend
and library versions, dictionary, `TOKENS_VERSION`) and the text, so its output can be
kept: an entry maps (digest of the fingerprint, sha256 of the text) to the tokens, and is
only ever written from the tokenizer's own output for that text (`remember`: a derivation's
or a check's tokenizing). The cache lives under KB_HOME, outside every index, so damage to
an index is not mirrored in it, and the check still compares the index with what the
tokenizer says of each checked text. A check that finds an entry disagreeing with the index
tokenizes the text again before it reports anything (a damaged entry costs time, never a
false alarm). A cache that cannot be opened, read or written only costs time; it keeps the
newest `MAX_ENTRIES` texts.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from kbtools.cachedb import open_cache_db
from kbtools.config import kb_home
from kbtools.index.tokenize import Tokenizer

FILE_NAME = "tokens.sqlite"
MAX_ENTRIES = 400_000  # texts kept (a few releases of a 100k-chunk corpus)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _tokenizer_key(tok: Tokenizer) -> str:
    return hashlib.sha256(json.dumps(tok.fingerprint(), sort_keys=True).encode()).hexdigest()


class TokenCache:
    """Entries of one tokenizer; every method is a miss or a no-op when the file cannot be
    used."""

    def __init__(self, tok: Tokenizer, path: Path | None = None):
        self.path = path if path is not None else kb_home() / "cache" / FILE_NAME
        self.tokenizer = _tokenizer_key(tok)
        self.con: sqlite3.Connection | None = None
        try:
            self.con = open_cache_db(self.path, [
                "CREATE TABLE IF NOT EXISTS tokens (tokenizer TEXT, key TEXT, tokens TEXT, "
                "PRIMARY KEY (tokenizer, key))"])
        except (OSError, sqlite3.Error):
            self.close()

    def get_many(self, texts: Iterable[str]) -> dict[str, list[str]]:
        """Tokens by text, for the texts that have an entry."""
        keys = {text_key(t): t for t in texts}
        out: dict[str, list[str]] = {}
        if self.con is None or not keys:
            return out
        wanted = list(keys)
        try:
            for i in range(0, len(wanted), 500):
                part = wanted[i:i + 500]
                rows = self.con.execute(
                    f"SELECT key, tokens FROM tokens WHERE tokenizer = ? AND key IN "
                    f"({','.join('?' * len(part))})", [self.tokenizer, *part])
                for key, value in rows:
                    tokens = json.loads(value)
                    if isinstance(tokens, list) and all(isinstance(x, str) for x in tokens):
                        out[keys[key]] = tokens
        except (sqlite3.Error, ValueError):
            return out
        return out

    def remember(self, tokens: dict[str, list[str]]) -> None:
        """Keep the tokenizer's output for these texts (one transaction, best effort)."""
        if self.con is None or not tokens:
            return
        rows = [(self.tokenizer, text_key(t), json.dumps(v, ensure_ascii=False))
                for t, v in tokens.items()]
        try:
            with self.con:
                self.con.executemany("INSERT OR REPLACE INTO tokens VALUES (?,?,?)", rows)
                self.con.execute("DELETE FROM tokens WHERE rowid <= "
                                 "(SELECT MAX(rowid) FROM tokens) - ?", (MAX_ENTRIES,))
        except (sqlite3.Error, ValueError):
            pass

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
        self.con = None


def remember_tokens(tok: Tokenizer, tokens: dict[str, list[str]]) -> None:
    """Keep what `tok` said of these texts (a derivation's tokenizing) for later checks."""
    cache = TokenCache(tok)
    try:
        cache.remember(tokens)
    finally:
        cache.close()
