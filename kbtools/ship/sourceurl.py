"""A sync source or release remote as kb shows it: the credentials of a URL never printed.

A field device often syncs from ``https://user:token@host/art.git`` (or a token as the user
name, as git hosts issue them) and CI pushes releases to such a remote. git itself leaves
them out of its messages; kb names its source in every error line, in `kb status`, `kb
releases`, `--json` output and the record of the last sync. Those say
``https://***@host/art.git`` instead: enough to tell which source, nothing to reuse.
The URL as given is still what git is run with, and what state.json keeps as the source of
the next `kb sync` without SOURCE (as git keeps a remote's URL in its config).

What counts as a secret: any user information of an http(s) or ftp(s) URL (a token is
often the user name), and a password (``user:pw@``) of any other scheme;
``ssh://git@host/…`` names an account, not a secret, and stays. Paths are never URLs: a
directory named ``a:b@c`` is shown as it is.
"""

from __future__ import annotations

import re

from kbtools.errors import KbError, Keyed

MASK = "***"

# scheme://userinfo@ — the user information runs to the last "@" before the authority ends
# ("/", "?", "#", whitespace, or a quote a message put around the URL). Linear on any text
# (a git message may carry what a server sent): the scheme is bounded, and the user
# information's "@"-separated runs cannot overlap, nor run past the "/" of a next "://"
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://)"
                       r"(?P<userinfo>[^/?#\s'\"`<>@]*(?:@[^/?#\s'\"`<>@]*)*)@")
# schemes where a user name alone may be a token
_TOKEN_SCHEMES = frozenset({"http://", "https://", "ftp://", "ftps://"})


def _mask(m: re.Match[str]) -> str:
    scheme, userinfo = m.group("scheme"), m.group("userinfo")
    if ":" in userinfo or "@" in userinfo or scheme.lower() in _TOKEN_SCHEMES:
        return f"{scheme}{MASK}@"
    return m.group(0)


def scrub(text: str) -> str:
    """`text` with the credentials of every URL in it replaced by ``***`` (a `Keyed` one
    keeps its key, its values scrubbed too)."""
    if "://" not in text or "@" not in text:
        return text
    if isinstance(text, Keyed):
        return Keyed(_USERINFO.sub(_mask, text), text.key,
                     {k: _USERINFO.sub(_mask, v) for k, v in text.values.items()})
    return _USERINFO.sub(_mask, text)


def shown_source(source: str) -> str:
    """A source or remote as kb prints and records it for people (`scrub`)."""
    return scrub(source)


def scrubbed(exc: KbError) -> KbError:
    """`exc` (the same object, of its own type) with the credentials of any URL its path or
    message names replaced (`scrub`): an error about a source names it without them."""
    message = scrub(exc.message)
    path = scrub(exc.path) if exc.path else exc.path
    if message != exc.message or path != exc.path:
        exc.message, exc.path = message, path
        exc.args = (exc.format(),)
    return exc
