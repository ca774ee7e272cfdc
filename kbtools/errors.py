"""One error hierarchy for the whole library.

Library code raises these; the CLI root (`kbtools.cli`) turns them into one line on
stderr and an exit code. Messages name the file (and line where known) and what to do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MAX_MESSAGE_CHARS = 500
# a colour sequence (SGR, what click.style writes), or one control character: C0 but tab and
# newline, DEL, C1 (U+009B is CSI and U+009D OSC to a terminal that reads 8-bit controls)
_TERMINAL_CONTROL = re.compile(r"\x1b\[[0-9;]{0,32}m|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class Keyed(str):
    """An English text (a pinned key's reason, a problem read from a library error) that
    keeps what it says as a key and the values its words name, so `kb status` can say it in
    Chinese (`said_in`); JSON and every other reader get the English text it is."""

    key: str
    values: dict[str, str]

    def __new__(cls, text: str, key: str = "",  # (pickle makes one of its text alone)
                values: Mapping[str, object] | None = None) -> Keyed:
        made = super().__new__(cls, text)
        made.key, made.values = key, {k: str(v) for k, v in (values or {}).items()}
        return made


class KbError(Exception):
    """An expected failure: bad input, missing files, policy violations. Exit code 1.

    `key` names the failure for a reader of another language (`kbtools.serve.i18n.ERRORS`:
    the web app's Chinese pages say it in Chinese), with the `values` its words name (a
    document, a filter); None when it has no words but `message` (English)."""

    exit_code = 1
    key: str | None = None

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 key: str | None = None, values: dict[str, str] | None = None):
        self.path = path
        self.line = line
        self.message = message
        if key is not None:
            self.key = key
        self.values = dict(values or {})
        super().__init__(self.format())

    def format(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message


class UsageError(KbError):
    """The command was called wrongly (unknown filter key, bad option value). Exit code 2."""

    exit_code = 2


# How each surface names the filters it takes, as a filter's error says it (`FilterError`)
CLI_FILTERS = "--where"  # kb query --where KEY=VALUE
API_FILTERS = "'where' filter"  # /api/search?where=…, the MCP search tool's `where`
PAGE_FILTERS = "filter"  # the search page's menus (?f.KEY=VALUE)


class FilterError(UsageError):
    """A search filter refused. Its message names the parameter the filter came by as the
    CLI does (``bad --where 'crop==x': …``); `said_as` says it as another surface names
    its filters (`API_FILTERS`, `PAGE_FILTERS`). The message is ``{opening} {name} {rest}``;
    `instead` is the one filter it advises writing, where it knows one (``power=5kW..10kW``
    for ``power=10..5kW``), for advice given about the filter typed otherwise."""

    def __init__(self, opening: str, rest: str, *, key: str, values: dict[str, str],
                 instead: str | None = None):
        self.opening, self.rest, self.instead = opening, rest, instead
        super().__init__(self.said_as(CLI_FILTERS), key=key, values=values)

    def said_as(self, name: str) -> str:
        """The message with the filters' parameter called `name`."""
        return f"{self.opening} {name} {self.rest}"


def surface_message(exc: KbError, filters: str) -> str:
    """`exc` as one surface says it (`KbError.format`): a filter's error naming the
    surface's filters parameter, `filters` (`API_FILTERS`, …)."""
    return exc.said_as(filters) if isinstance(exc, FilterError) else exc.format()


class ConfigError(KbError):
    """kb.toml is missing a value, has a wrong type, or cannot be parsed."""


class FindingsError(KbError):
    """`kb check` (or a build gate) found errors; the findings were already printed."""


class SourceError(KbError):
    """A knowledge file that was not read: outside the repository, not a regular file, too
    large or unreadable. `code` is the `kb check` finding code that reports it."""

    def __init__(self, code: str, message: str, *, path: str | None = None):
        self.code = code
        super().__init__(message, path=path)


class StaleEdit(KbError):
    """`kb check --fix` found a document changed since it was checked: an edit's old text is
    no longer at its line and column, so none of the document's edits is written."""

    def __init__(self, line: int, col: int, old: str):
        self.col = col
        super().__init__(f"changed since it was checked (no {old!r} here now): nothing of "
                         "it was written; run `kb check --fix` again", line=line)


class IndexLoadError(KbError):
    """An index is missing, corrupted, or incompatible (format version, model)."""


class ModelError(KbError):
    """An embedding model cannot be loaded offline."""


class RenderError(KbError):
    """A formula or table could not be rendered."""


class ReleaseError(KbError):
    """Making or publishing a release failed."""


class EngineError(KbError):
    """A search engine (Milvus) is unreachable, lacks the release, or refused a publish.
    Its `key` says which when known, else that the engine failed (``engine_failed``)."""

    key = "engine_failed"


class ServedError(EngineError):
    """A collection was not dropped: aliases of its database (`aliases`) point at it."""

    def __init__(self, message: str, *, collection: str, aliases: tuple[str, ...],
                 path: str | None = None):
        self.collection, self.aliases = collection, aliases
        super().__init__(message, path=path)


class SyncError(KbError):
    """A sync was refused or failed; the served release is unchanged."""


class UnchangedSyncError(SyncError):
    """A sync that changed nothing, its words in parts: `reason` (why), `served` (the
    release that served then, None: none), `clause` (what it said of it then: "kb-r3 still
    serves (unchanged)", or that no pinned key vouches for it), `after` (what its message
    goes on with), `sep` (what stands between `reason` and `clause`). The record of the failure keeps the parts (`kbtools.ship.sync_record`), so
    what it says of the served release is said again in the past once another command
    changed what serves, from the parts, not by rewriting its words."""

    def __init__(self, reason: str, served: str | None, clause: str, *, after: str = "",
                 sep: str = "; ", unchanged: bool = True, switched: bool = False,
                 path: str | None = None, key: str | None = None,
                 values: dict[str, str] | None = None):
        self.reason, self.served, self.clause, self.after, self.sep = (
            reason, served, clause, after, sep)
        self.unchanged = unchanged  # the clause says "(unchanged)" of the served release
        self.switched = switched  # ... or that the command switched to it ("serves now")
        super().__init__(f"{reason}{sep}{clause}{after}", path=path, key=key, values=values)


class TransientSyncError(SyncError):
    """A sync could not take a release for a reason of the device or of the link (its disk
    full, a file-size limit, a write refused, a transfer cut or stalled): no verdict on the
    release, so the sync stops there, never passing over to an older release as it does
    one the trusted keys refuse; the same sync run again takes it."""


class FetchLimitError(TransientSyncError):
    """A release not fetched because the fetch went past this device's size limit (kb.toml
    ``[sync] max_fetch_bytes``): a limit of the device, no verdict on the release, which is
    not refused (`kb releases` says it was not fetched, not that a sync refused it); nothing
    of it is kept, and a sync given a higher limit takes it."""


class Interrupted(KbError):
    """A command stopped by Ctrl-C or SIGTERM. The message says what state it left (which
    release serves) and what to run next; the CLI prints it as ``kb: interrupted: ...``.
    Exit code 130."""

    exit_code = 130


class ReviewError(KbError):
    """A review action was refused (not a reviewer, self-review, ...)."""


class TableError(KbError):
    """A decision table is malformed or cannot be evaluated."""


def valid_unicode(text: str) -> str:
    """`text` as valid Unicode (encodable as UTF-8): bytes that were not UTF-8 (kept as
    surrogate escapes, as in `sys.argv` or a file read with ``surrogateescape``) and lone
    surrogates (``"\\ud800"`` in JSON) become U+FFFD; valid sequences are kept."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:  # escaped bytes back to bytes, so a split UTF-8 sequence is recombined
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # surrogates that are not byte escapes
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def one_line(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` as one printable line of at most `limit` characters: whitespace runs become one
    space, control characters and lone surrogates are shown escaped, the rest is cut with ….
    Never raises (a broken ``__str__`` gives its type name)."""
    try:
        value = str(text)
    except Exception:  # the crash-log writer and MCP errors must not fail on a bad object
        value = f"<unprintable {type(text).__name__}>"
    value = " ".join(value.split())
    if not value.isprintable():
        value = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in value)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def terminal_text(text: str) -> str:
    """`text` as a terminal prints it without obeying it: every control character but a tab
    and a newline is written as a ``\\u00XX`` escape (so a JSON string still reads it as the
    same character). Text from knowledge or from a question (a chunk, a title, a logged
    question) thus cannot move the cursor over what was printed, erase it, return to a
    line's start, set the window title, make a link (OSC 8) or write the clipboard (OSC
    52). Colour sequences stay (the CLI's own styles), except conceal (8), which would hide
    the text after it."""
    if text.isprintable() or _TERMINAL_CONTROL.search(text) is None:
        return text
    return _TERMINAL_CONTROL.sub(_shown_control, text)


def _shown_control(m: re.Match[str]) -> str:
    seq = m.group(0)
    if len(seq) > 1 and "8" not in seq[2:-1].split(";"):
        return seq
    return f"\\u{ord(seq[0]):04x}{seq[1:]}"


# the bidirectional embedding, override and isolate controls (LRE RLE PDF LRO RLO, LRI RLI
# FSI PDI): text holding one is shown in another order than it is stored ("Trojan Source",
# CVE-2021-42574): a title "\u202egnp.exe" reads as exe.png
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bidi_control(text: str) -> tuple[int, str] | None:
    """The first bidirectional control of `text` (`BIDI_CONTROLS`) as (its index, its name
    as ``U+202E``), None when it holds none."""
    at = next((i for i, ch in enumerate(text) if ch in BIDI_CONTROLS), None)
    return None if at is None else (at, f"U+{ord(text[at]):04X}")


# invisible format characters (Unicode's Cf: zero-width space and joiners, word joiner, BOM,
# soft hyphen, bidi marks, tags): no reader sees them (a soft hyphen shows only where a line
# breaks at it), and inside a word they split it for the tokenizer (`小\u200b麦` is not
# `小麦`), so the text a reader sees (`kbtools.markdown`) and a question (`kbtools.query.question`)
# drop them
INVISIBLE = re.compile("[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f"
                       "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u0890\u0891\u08e2\ufeff"
                       "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
                       "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
                       "\U000e0020-\U000e007f]+")


def unpadded(text: str) -> str:
    """`text` without the blanks and the invisible characters (`INVISIBLE`: a zero-width
    space, a byte-order mark, a bidi mark) around it, which a path, a citation or a release
    tag copied from a chat, a PDF or a rich-text editor carries (`x.md\u200b` was refused as
    "only Markdown documents can be read", `kb-r1\u200b` as no release tag)."""
    start, end = 0, len(text)
    while start < end and (text[start].isspace() or INVISIBLE.fullmatch(text[start])):
        start += 1
    while end > start and (text[end - 1].isspace() or INVISIBLE.fullmatch(text[end - 1])):
        end -= 1
    return text[start:end]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 document``, ``2 documents``: a count with its noun (messages and CLI output)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def line_span(start: int, end: int, dash: str = "–") -> str:
    """``lines 12–20``, or ``line 7`` when the range is one line."""
    return f"line {start}" if start == end else f"lines {start}{dash}{end}"
