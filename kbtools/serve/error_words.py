"""A library error in the words a page says it in: Chinese by its `KbError.key`, else its
English message (split from `kbtools.serve.i18n`, which re-exports these)."""

from __future__ import annotations

from kbtools.errors import PAGE_FILTERS, KbError, one_line, surface_message

# the table moved below `agents/` (which `kb read` and MCP `read` say it from), named here
from kbtools.words.error_words import CLAUSES as CLAUSES
from kbtools.words.error_words import ERRORS as ERRORS
from kbtools.words.error_words import MAX_ERROR_VALUE as MAX_ERROR_VALUE
from kbtools.words.error_words import error_zh as error_zh


def error_in(exc: KbError, lang: str) -> str:
    """What a page in `lang` says of `exc` in a line of its own (not an error page, which shows
    the English below): its Chinese words (`error_zh`) on a Chinese page, else its message
    (a filter's naming the page's filters, `PAGE_FILTERS`, not ``--where``)."""
    return (error_zh(exc) if lang == "zh" else None) or one_line(surface_message(exc,
                                                                            PAGE_FILTERS))
