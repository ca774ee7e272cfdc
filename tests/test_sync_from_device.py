"""A device synced from another device's directory (split from test_sync.py)."""

from __future__ import annotations

from pathlib import Path

from test_release_helpers import Pub
from test_sync import run_cli, served_ok

from kbtools.ship.operate import status
from kbtools.ship.signing import keygen
from kbtools.ship.sync import sync


def test_a_device_syncs_from_another_device_directory(tmp_path: Path):
    """Two devices sharing one source, the second fed by the first (a laptop synced in the
    office, a tablet synced from it on site): `kb sync LAPTOP --to TABLET` (or LAPTOP's
    `current`, or one of its releases) syncs from the repository the laptop verified its
    releases into, signature and all; git said of the directory "does not appear to be a
    git repository". The next `kb sync` without SOURCE follows the laptop again."""
    key = tmp_path / "k"
    keygen(key)
    pub = Pub(tmp_path, sign_key=key)
    pub.release()
    pub.release()
    laptop = tmp_path / "laptop"
    assert sync(str(pub.art), laptop, trusted=[Path(f"{key}.pub")]).tag == "kb-r2"
    for i, given in enumerate((laptop, laptop / "current", laptop / "releases" / "kb-r2")):
        tablet = tmp_path / f"tablet{i}"
        code, out = run_cli("sync", str(given), "--to", str(tablet), "--trusted-key",
                            f"{key}.pub")
        assert code == 0 and out.startswith("serving kb-r2 (was nothing)"), out
        assert served_ok(tablet) == "kb-r2"
        assert status(tablet)["served"]["signed_by"] is not None
    pub.release()
    assert sync(str(pub.art), laptop).tag == "kb-r3"
    code, out = run_cli("sync", "--to", str(tmp_path / "tablet0"))
    assert code == 0 and out.startswith("serving kb-r3 (was kb-r2)"), out
    assert served_ok(tmp_path / "tablet0") == "kb-r3"
