"""Rendered document pages of one opened release, kept for the next view of the same page.

A document page renders the whole document (a 2,000-line manual: ~0.25 s on a 2-core
device, most of it Markdown to HTML and reading the document's chunks), yet the same page
is asked for again and again: a reload, the language switch and back, the next technician
opening the same cited section. `PageCache` keeps the finished page (UTF-8 bytes) under
the request's every input that changes it, least recently used dropped first:

- the cache belongs to one opened release (`source.Served.pages`): a `kb sync` or `kb
  rollback` serves another `Served`, whose pages are rendered again (a document the sync
  removed is a 404, not its old page); the release a device stops serving is closed with
  its pages;
- the key is everything the page is made of besides the release: the address's path and
  every query field in order (cited lines, the question whose terms are highlighted, and
  the rest the language link repeats), the interface language (chosen from ``?lang=``, the
  cookie or the browser's languages, so not always in the address) and the local date (a
  document past its ``valid_until`` says so from that day): two requests that differ in
  any of these never share a page;
- bounded in memory: `MAX_BYTES` per release (pages and keys counted), `KEEP_OPEN`
  releases open at most (`source.KEEP_OPEN`, 2), so 16 MiB at most on a device; a page of
  more than a quarter of it is not kept (it would push out every other page).

Only a page rendered in full is kept (an error page is not: a refusal, a missing document).

Under the pages, `Prepared` keeps what they are rendered from per document (its parsed
tokens and chunks, `serve.docparts`): a page not kept (another cited range, another
question) is rendered from them, not parsed again; `MAX_PREPARED_TOKENS` per release
(~11 MiB), so a device holds 16 + 22 MiB at most for both. A document heavier than that
bound (a 9,000-line manual is ~94,000 tokens; its parse is ~1.5 s of each view, its render
a fifth of it) is kept alone, up to `MAX_PREPARED_ONE` (~46 MiB): every other is dropped
to make room, and it is dropped at the next document kept. Its tokens are in memory while
its page is made anyway; a heavier one (the 2 MB `kb check` allows can be 400,000 tokens)
is parsed again on each view, as it was.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

MAX_BYTES = 8 * 1024 * 1024  # per opened release
MAX_PREPARED_TOKENS = 32_000  # per opened release: parsed tokens kept (~360 B each: ~11 MiB)
MAX_PREPARED_ONE = 128_000  # one document heavier than that, kept alone (~46 MiB)


class Weighted(Generic[T]):
    """Values by key, each with a weight, least recently used dropped first while their
    weights pass `max_weight` (the newest stays: a `largest` over `max_weight` is kept
    alone); a value heavier than `largest` is made for its caller and not kept. Values are
    read-only once made: any worker thread uses what another made. Two threads missing the
    same key both make it (outside the lock, so a slow make never blocks a hit); the first
    to finish is kept."""

    def __init__(self, max_weight: int, largest: int | None = None):
        self.max_weight = max_weight
        self.largest = max_weight if largest is None else largest
        self._held: OrderedDict[Hashable, tuple[T, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self.made = 0  # misses: what the tests and the benchmark count
        self.hits = 0

    @property
    def weight(self) -> int:
        """The weight held."""
        return self._weight

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._held

    def get(self, key: Hashable, make: Callable[[], tuple[T, int]]) -> T:
        """What is kept under `key`, else `make()`'s (value, weight), kept if it fits
        (`make`'s exceptions pass, nothing kept)."""
        with self._lock:
            held = self._held.get(key)
            if held is not None:
                self._held.move_to_end(key)
                self.hits += 1
                return held[0]
        value, weight = make()
        with self._lock:
            self.made += 1
            if weight > self.largest or key in self._held:
                return value
            self._held[key] = (value, weight)
            self._weight += weight
            while self._weight > self.max_weight and len(self._held) > 1:
                self._weight -= self._held.popitem(last=False)[1][1]
        return value

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._weight = 0


class PageCache(Weighted[bytes]):
    """Rendered pages (UTF-8) by key, weighed in bytes with their keys; a page of more
    than a quarter of `max_bytes` is not kept."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        super().__init__(max_bytes, largest=max_bytes // 4)

    @property
    def renders(self) -> int:
        """Pages rendered (misses)."""
        return self.made

    @property
    def size(self) -> int:
        """Bytes held (pages and their keys)."""
        return self.weight

    def page(self, key: Hashable, render: Callable[[], str]) -> bytes:
        """The page under `key`: kept, else `render()`."""
        def made() -> tuple[bytes, int]:
            body = render().encode("utf-8")
            return body, len(body) + len(repr(key).encode("utf-8"))
        return self.get(key, made)


class Prepared(Weighted[T]):
    """What a document's pages are rendered from, parsed once per opened release (its
    Markdown's tokens after the passes every view shares, its chunks), by document,
    weighed in tokens (a 2,000-line manual is ~20,000 of them). A document heavier than
    the bound is kept alone up to `largest`; one heavier still is made for its view and
    not kept."""

    def __init__(self, max_weight: int = MAX_PREPARED_TOKENS, largest: int = MAX_PREPARED_ONE):
        super().__init__(max_weight, largest=max(largest, max_weight))
