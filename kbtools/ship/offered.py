"""What a source offers a device, in the words a sync says of it: the source as git is
to be asked for it (another device directory as the repository it syncs into), the branches
it has instead of the artifacts branch, a redirect, the releases it withdrew, and the newer
releases a sync passed over because the trusted keys do not vouch for them (and those
below them refused for any reason while it looked for one they do)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from kbtools.errors import (
    FetchLimitError,
    KbError,
    Keyed,
    TransientSyncError,
    UnchangedSyncError,
)
from kbtools.index.layout import DeviceLayout, device_of_release
from kbtools.ship.git import tag_name
from kbtools.ship.sourceurl import scrub
from kbtools.ship.status_words import keyed_why

__all__ = ["instead_of", "normalize_source", "other_branches", "passed_over", "redirected",
           "refused_notes", "refused_now", "withdrawn"]


def normalize_source(source: str) -> str:
    """A local path made absolute; another device directory (or one of its releases, its
    `current`) as the repository it syncs into, DIR/repo.git, which holds the releases it
    verified: one device syncs from another (a laptop's over a cable, a colleague's on
    site). Git said of the directory itself "does not appear to be a git repository"."""
    p = Path(source)
    if "://" in source or not p.exists():
        return source
    p = p.resolve()
    other = DeviceLayout(device_of_release(p) or p)
    return str(other.repo) if other.is_device() and (other.repo / "HEAD").is_file() else str(p)


def refusal(exc: KbError) -> str:
    """Why a release was refused, as `refused` maps keep it: `exc`'s message, `Keyed` with
    what failed (`KbError.key`, its values) for the warning that quotes it
    (`refused_notes`) to be said in Chinese too."""
    return Keyed(exc.message, exc.key or "", exc.values)


def refused_notes(refused: dict[int, str], tag: str) -> tuple[str, ...]:
    """The warnings of a sync that took `tag` over the newer releases `refused` (each why
    keyed where it was made: `refusal`, `status_words.keyed_why`)."""
    return tuple(Keyed(f"{tag_name(s)} refused: {why}; {tag}, the newest release that "
                       "verifies with the trusted keys, is taken instead", "warn_refused",
                       {"refused": tag_name(s), "release": tag} | keyed_why(why))
                 for s, why in sorted(refused.items(), reverse=True))


def refused_now(refused: dict[int, str], listed: dict[int, tuple[str, str]]
                ) -> dict[str, str]:
    """The releases a sync refused (serial -> why) by tag, as state.json keeps them for `kb
    releases` to say why a newer release at the source is not taken; only those the
    source lists (`listed`)."""
    return {tag_name(s): scrub(why) for s, why in sorted(refused.items()) if s in listed}


def passed_over(refused: dict[int, str], current: str | None, serves: str,
                rolled_back: tuple[str, ...] = ()) -> UnchangedSyncError:
    """The error of a sync that found no release the trusted keys vouch for newer than
    `current`: the newest release refused and why, and any others refused below it;
    `serves` says what the device serves now (`sync.still_serves`); `rolled_back`, the
    newer releases the operator rolled back from, which the sync skips. Why: after `kb
    rollback` from kb-r3, a newer kb-r4 no key vouched for ended in "no release newer than
    kb-r1 verifies with the trusted keys", as if kb-r3 did not."""
    newest = max(refused)
    others = sorted(set(refused) - {newest}, reverse=True)
    also = (f" ({', '.join(tag_name(s) for s in others)} below it refused too)"
            if others else "")
    skipped = (f" but {', '.join(rolled_back)}, rolled back from on purpose (`kb rollback "
               f"{rolled_back[-1]}` serves it again)" if rolled_back else "")
    what = (f"no release newer than {current} verifies with the trusted keys{skipped}"
            if current else "no release at the source verifies with the trusted keys")
    return UnchangedSyncError(f"{tag_name(newest)}: {refused[newest]}{also}; {what}", current,
                              serves if current else "no release is served yet", sep=", ",
                              unchanged=False, key="sync_untrusted",
                              values={"release": tag_name(newest)})


def instead_of(exc: TransientSyncError, refused: dict[int, str], state: dict[str, Any],
               tag: str) -> TransientSyncError:
    """`exc`, the error of the release `tag` the device or the link failed to take (a full
    disk, a cut transfer, a fetch past the device's size limit), naming the newer release
    `refused` it was taken in place of (none: `exc` as it is); one not fetched for the size
    limit is recorded in `state` (``not_fetched``: `kb releases` says so, not that it was
    refused). Why: a full disk while deriving a release below one the keys refused passed
    it over as refused too, then the next lower one, and the sync ended saying no release
    verified with the trusted keys, never that the disk was full; a fetch past the limit
    under the checks of such a release was passed over as refused the same way."""
    if isinstance(exc, FetchLimitError):
        state["not_fetched"] = {tag: scrub(exc.message)}
    if not refused:
        return exc
    newest = max(refused)
    return TransientSyncError(f"{exc.message} (taken in place of {tag_name(newest)}, "
                              f"refused: {refused[newest]})", path=exc.path, key=exc.key,
                              values=exc.values)


def withdrawn(floor: int, current: str | None) -> str:
    """The releases a source that offers none at or above `floor` withdrew, as a sync
    refusing the downgrade names them: the served one and the highest accepted."""
    top = tag_name(floor)
    if current is None or current == top:
        return (f"{top} is no longer offered there: its tag was deleted, or this is another "
                "source")
    return (f"neither {current}, served here, nor {top} is offered there any more: their "
            "tags were deleted, or this is another source")


def other_branches(names: tuple[str, ...]) -> str:
    """The branches a source has instead of the artifacts branch, in words: kb.toml
    ``[release] branch`` may name one written otherwise (``kb／index`` for ``kb/index``, a
    full-width slash)."""
    if not names:
        return "it has no branches: is it an artifacts repo?"
    shown = ", ".join(repr(n) if not n.isascii() or not n.isprintable() else n
                      for n in sorted(names)[:5])
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return (f"its branches: {shown}{more}; kb.toml [release] branch names the one to sync "
            "(is it an artifacts repo?)")


def redirected(source: str, moved_to: str | None, device: Path) -> tuple[str, ...]:
    """A warning when an http(s) source redirected the sync elsewhere (the publisher moved
    the artifacts repository and its old address forwards to the new one): the sync works,
    until the forwarding ends; the operator is told the new address now."""
    if not moved_to:
        return ()
    new = moved_to.rstrip("/")
    command = f"kb sync {shlex.quote(new)} --to {shlex.quote(str(device))}"
    return (Keyed(f"the source redirects to {new} (it moved, and {source} forwards to it): "
                  f"`{command}` syncs from there directly, before the old address stops "
                  "forwarding", "warn_redirect", {"new": new, "source": source,
                                                  "command": command}),)
