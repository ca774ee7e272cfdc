"""`kb serve` on a device directory while `kb sync` lands a release and `kb rollback` goes
back and forth: every answer comes whole from one release and names it, and the server
follows each switch without a restart.

A real `kb serve` process (uvicorn on a loopback port), a real device synced from signed
releases of the example knowledge (`device_fixtures`), questions asked from threads while
the device switches. kb-r2 adds the English document on pump seals (`device_fixtures.ADDED`),
so an answer holding it came from kb-r2, and one from kb-r1 never holds it.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from urllib.parse import quote

import pytest
from browserfixtures import serve
from device_fixtures import ADDED, make_device, second_release

pytestmark = pytest.mark.slow

QUESTION = "how often to replace the mechanical seal of the irrigation pump"


def api(url: str) -> tuple[str, bool]:
    """The release an API answer names, and whether it cites the pump-seals document."""
    with urllib.request.urlopen(f"{url}/api/search?q={quote(QUESTION)}", timeout=60) as resp:
        body = json.load(resp)
    return body["release"]["tag"], any(r["doc"] == ADDED for r in body["results"])


def page(url: str) -> tuple[str, bool]:
    """The release the search page names with its results, and whether its results cite the
    pump-seals document."""
    with urllib.request.urlopen(f"{url}/?q={quote(QUESTION)}&lang=en", timeout=60) as resp:
        html = resp.read().decode("utf-8")
    [tag] = re.findall(r'class="tag"[^>]*>(kb-r\d+)<', html)
    return tag, f'data-doc="{ADDED}"' in html


def test_answers_come_whole_from_one_release_as_syncs_and_rollbacks_switch(tmp_path):
    d = make_device(tmp_path)
    server = serve(d.dev)
    url = next(server)
    try:
        assert api(url) == ("kb-r1", False) and page(url) == ("kb-r1", False)
        seen: list[tuple[str, bool]] = []
        errors: list[BaseException] = []
        stop = threading.Event()

        def ask(how) -> None:
            while not stop.is_set():
                try:
                    seen.append(how(url))
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=ask, args=(how,)) for how in (api, page, api)]
        for t in threads:
            t.start()
        try:
            second_release(d)  # kb sync lands kb-r2
            assert api(url) == ("kb-r2", True) and page(url) == ("kb-r2", True)
            for tag in ("kb-r1", "kb-r2", "kb-r1"):
                code, out = d.kb("rollback", tag, "--to", str(d.dev))
                assert code == 0, out
                assert api(url) == (tag, tag == "kb-r2") and page(url) == (tag, tag == "kb-r2")
        finally:
            stop.set()
            for t in threads:
                t.join(60)
        assert not errors, repr(errors[0])
        assert {tag for tag, _ in seen} == {"kb-r1", "kb-r2"}, seen
        mixed = [(tag, cites) for tag, cites in seen if cites != (tag == "kb-r2")]
        assert not mixed, mixed  # an answer of one release that named the other
    finally:
        next(server, None)
