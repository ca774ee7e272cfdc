"""Questions the search form POSTed that no URL holds, kept in memory under a random key for
a short while, so the page that answers one is a GET (POST → 303 → ``/?held=<key>``): Back,
Forward, reload and the language switch ask for it again without the browser's "resubmit
the form?" prompt.

What is held, and where: the form's fields (a pasted log, its filters), in this server
process's memory only, never on disk, in a log or in a URL (the URL holds 24 random
characters that say nothing of the question). An entry is dropped `HOLD_SECONDS` after it
was posted, and the oldest first once all of them hold more than `MAX_HELD_CHARS`; a server
restart drops them all. A key asked for after that is gone: the page says so and asks for
the question again.

`AnswerTags`: a results page's ETag, so reloading it (the same GET: a link, a held key) does
not log its question again (`kbtools.query.log`: an audit of the answers given, one line per
question asked). The tag says when this server answered that page and is signed with a
secret of this process: a browser revalidating its copy (a reload sends the tag back in
``If-None-Match``) within `RELOAD_SECONDS` of the answer is told 304 (its copy is the
answer) and nothing is searched or logged; another client, a page of another release or
language, a tag past the window or from before a restart is searched and logged again. A
client cannot forge a tag to keep its questions out of the log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from kbtools.query.question import MAX_QUESTION_CHARS
from kbtools.serve.staticfiles import ANY_TAG, MAX_TAGS_HEADER

HOLD_SECONDS = 3600.0
MAX_HELD_CHARS = 50 * MAX_QUESTION_CHARS  # ~0.5 M characters of questions at most
KEY_BYTES = 18  # 24 URL-safe characters
RELOAD_SECONDS = 900.0  # a results page reloaded within this of its answer is not logged again


@dataclass(frozen=True)
class Held:
    """A POSTed search: its fields as posted (the question cut to its searched length) and
    the length of the question as pasted when it was cut (None when it was not)."""

    fields: tuple[tuple[str, str], ...]
    pasted_chars: int | None = None

    def size(self) -> int:
        return sum(len(k) + len(v) for k, v in self.fields)


class HeldQuestions:
    """The held searches of one server (shared by its worker threads)."""

    def __init__(self, seconds: float = HOLD_SECONDS, max_chars: int = MAX_HELD_CHARS,
                 clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.max_chars = max_chars
        self.clock = clock
        self.lock = threading.Lock()
        self.entries: OrderedDict[str, tuple[float, Held]] = OrderedDict()
        self.chars = 0

    def put(self, held: Held) -> str:
        """Hold `held`; its key."""
        key = secrets.token_urlsafe(KEY_BYTES)
        with self.lock:
            self.entries[key] = (self.clock(), held)
            self.chars += held.size()
            self._drop(self.clock())
        return key

    def get(self, key: str) -> Held | None:
        """What `key` holds; None when it never did or has been dropped."""
        with self.lock:
            self._drop(self.clock())
            found = self.entries.get(key)
        return found[1] if found else None

    def _drop(self, now: float) -> None:
        """Drop the expired entries and, past `max_chars`, the oldest (the newest is kept)."""
        while self.entries:
            at, held = next(iter(self.entries.values()))
            if now - at < self.seconds and (self.chars <= self.max_chars
                                            or len(self.entries) == 1):
                return
            self.chars -= self.entries.popitem(last=False)[1][1].size()


class AnswerTags:
    """The ETags of the results pages one server answered (see the module docstring)."""

    def __init__(self, seconds: float = RELOAD_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.secret = secrets.token_bytes(32)

    def tag(self, page: str) -> str:
        """The tag of `page` (what identifies the answer: the release, the question and its
        filters, the language) answered now."""
        at = int(self.clock())
        return f'W/"{at:x}.{self._sign(at, page)}"'

    def answered(self, header: str | None, page: str) -> str | None:
        """The tag in `header` (an ``If-None-Match``) this server gave `page` within
        `seconds` (``*``: any, the page's tag now); None when it holds none."""
        now = self.clock()
        for item in (header or "")[:MAX_TAGS_HEADER].split(","):
            if item.strip() == ANY_TAG:
                return self.tag(page)
            value = item.strip().removeprefix("W/").strip('"')
            stamp, _, mac = value.partition(".")
            if not (0 < len(stamp) <= 16 and all(c in "0123456789abcdef" for c in stamp)):
                continue
            at = int(stamp, 16)
            if 0 <= now - at < self.seconds and hmac.compare_digest(mac, self._sign(at, page)):
                return f'W/"{value}"'
        return None

    def _sign(self, at: int, page: str) -> str:
        data = f"{at:x}\0{page}".encode("utf-8", "surrogatepass")
        return hmac.new(self.secret, data, hashlib.sha256).hexdigest()[:32]
