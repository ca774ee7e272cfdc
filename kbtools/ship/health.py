"""A device's state as `kb status` reports it, and the health it ends in: one source for
`kb status --json` and the MCP `status` tool (which release serves, its commit, its age,
whether its files verify, the last sync and how it went, a newer release passed over).

`report` reads a device directory or a git checkout of a release; `health` and
`checkout_health` decide "ok", "degraded" or "refused" with the reasons, in the words both
say them in.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from kbtools.errors import SyncError
from kbtools.index.layout import DeviceLayout
from kbtools.ship.checkout import checkout_status
from kbtools.ship.device import require_device
from kbtools.ship.operate import status as device_status
from kbtools.ship.readonly import repair_advice
from kbtools.ship.release import age_days, clock_behind, release_settings
from kbtools.ship.status_words import INDEX_PROBLEM
from kbtools.ship.trust import untrusted_release


def report(where: Path, *, check_files: bool = True) -> dict[str, Any]:
    """`kb status --json` of `where`: a git checkout of a release (``checkout`` names it) or
    a device directory (``device``), with ``health``: {"state": "ok"|"degraded"|"refused",
    "reasons": [...]}. `check_files`: re-hash the served files (`kb status` without
    ``--quick``). A build's output or a half-made release is refused (`require_device`)."""
    max_age = release_settings().max_age_days
    co = checkout_status(where)
    if co is not None:
        state, reasons = checkout_health(co, max_age)
        co["health"] = {"state": state, "reasons": reasons}
        return co
    st = device_status(require_device(where), max_age_days=max_age, check_files=check_files)
    state, reasons = health(st, max_age)
    st["health"] = {"state": state, "reasons": reasons}
    return st


def checkout_health(co: dict[str, Any], max_age_days: int) -> tuple[str, list[str]]:
    """How `kb status` of a git checkout of a release (`co`, `checkout_status`) ends, in a
    device's meanings: "refused" when a query would refuse it; "degraded" when it answers
    from a release older than `[release] max_age_days` or dated ahead of this machine's
    clock; else "ok". A checkout has no sync of kb's to fail (git fetches it), an index not
    derived yet is derived by the next question, and an older tag checked out while a
    newer one is fetched is the way a clone rolls back (a device's rollback is no problem
    either), so none of these degrades it."""
    if co["problem"]:
        return "refused", [co["problem"]]
    if co["tag"] is None:
        return "refused", ["HEAD is no release tag"]
    created = co.get("created")
    behind = clock_behind(created)
    age = age_days(created)
    co.update(age_days=round(age, 2) if age is not None else None, clock_behind=behind,
              stale=bool(behind is None and age is not None and age > max_age_days))
    if behind:
        return "degraded", [f"the age of {co['tag']} is unknown: {behind}"]
    if co["stale"]:
        newer = (f"`git checkout {co['newer']}` serves the newer release this clone holds"
                 if co.get("newer") else "`git pull --ff-only` brings a newer one, if the "
                 "remote has one")
        return "degraded", [f"the checked-out release {co['tag']} is {age_text(age)}, older "
                            f"than {max_age_days} days (kb.toml [release] max_age_days): "
                            f"{newer}"]
    return "ok", []


def health(st: dict[str, Any], max_age_days: int) -> tuple[str, list[str]]:
    """How a device's `kb status` (`st`) ends: "refused" with its one reason (no question
    is answered: what `kb query` refuses), else "degraded" with each reason it answers
    but needs the operator (a device kb cannot write whose index/ fails its check answers
    from a copy under KB_HOME: `readonly.repair_advice`), else "ok"."""
    served, device = st["served"], st["device"]
    if st["current_problem"]:
        return "refused", [st["current_problem"]]
    if served is None:
        return "refused", ["serves nothing yet: no question is answered until `kb sync SOURCE "
                           f"--to {shlex.quote(device)}` installs a release"]
    keys_problem = st["trusted_keys_problem"]
    if keys_problem and (refused := _refused_by_keys(Path(device), served["tag"])):
        return "refused", [refused]
    reasons = []
    if served["verified_now"] is False:
        # index/ alone fails (`operate.release_problems` checks it once the rest verified):
        # on a device kb cannot write a copy under KB_HOME answers (`readonly.served_copy`)
        index_only = str(getattr(served["problems"][0], "key", "")).startswith(INDEX_PROBLEM)
        advice = repair_advice(DeviceLayout(Path(device)).release(served["tag"])) \
            if index_only else None
        failed = f"the served release {served['tag']} fails verification: " \
                 f"{(served['problems'] or ['?'])[0]}"
        if advice is None:
            return "refused", [f"{failed}; `kb sync` derives a damaged index again, `kb "
                               "rollback` serves another release"]
        reasons.append(f"{failed}; {advice}")
    if served["signer_unpinned"]:
        return "refused", [served["signer_unpinned"]]
    last = st["last_sync"]
    if isinstance(last, dict) and not last.get("under_way") and last.get("ok") is False:
        since = f"; {last['since']}" if last.get("since") else ""
        reasons.append(f"the last sync ({last.get('at')}) failed: {last.get('error')}{since}")
    if served["clock_behind"]:
        reasons.append(f"the age of {served['tag']} is unknown: {served['clock_behind']}")
    elif served["stale"]:
        reasons.append(f"the served release {served['tag']} is {age_text(served['age_days'])}, "
                       f"older than {max_age_days} days (kb.toml [release] max_age_days): "
                       "`kb sync` brings a newer one, if the source has one")
    if keys_problem:  # questions answered (the signer's key file is there), syncs refused
        reasons.append(f"pinned keys: {keys_problem}")
    if st["state_problem"]:
        reasons.append(st["state_problem"])
    return ("degraded" if reasons else "ok"), reasons


def _refused_by_keys(device: Path, tag: str) -> str | None:
    """Why questions are refused when the pinned keys cannot all be read, as
    `intact.check_intact` decides it: trusted_keys/ cannot be listed, or no key file vouches
    for the served release; None when its signer's key file is there (questions answered,
    `kb sync` refused until the damaged one is repaired: degraded)."""
    try:
        return untrusted_release(device, DeviceLayout(device).release(tag), tag)
    except SyncError as exc:
        return f"{exc.message}; no question is answered until it can"


def age_text(days: float | None) -> str:
    """A release's age in days as status says it: "1 day old", "3.5 days old"."""
    if days is None:
        return "age unknown"
    return f"{days:g} day old" if days == 1 else f"{days:g} days old"
