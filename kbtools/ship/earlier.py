"""An earlier release asked for by its tag (`kb query --release`): a device's
``releases/<tag>`` while the device keeps it, or a release tag of a git checkout of a
release, read from git objects, verified and derived as a checkout of it is, with nothing
checked out (`checkout.derived_tag`)."""

from __future__ import annotations

import os
from pathlib import Path

from kbtools.errors import SyncError, UsageError
from kbtools.index.layout import DeviceLayout
from kbtools.ship.changes import not_on_device
from kbtools.ship.checkout import derived_tag, find_checkout, implicit_checkout
from kbtools.ship.device import device_dir


def earlier_release(path: Path | None, tag: str) -> Path:
    """The release directory of release `tag` of the index `path` means (as for `kb
    query`: --index, $KB_INDEX, the checkout around the current directory, else
    <KB_HOME>/device). SyncError when it does not keep that release; UsageError for an
    index that keeps no releases (a build's dist/)."""
    given = path if path is not None else (
        Path(os.environ["KB_INDEX"]) if os.environ.get("KB_INDEX") else implicit_checkout())
    where = given if given is not None else device_dir(None)
    found = find_checkout(where)
    if found is not None:
        return derived_tag(*found, tag)
    if DeviceLayout(where).is_device():
        local = DeviceLayout(where).release_dirs()
        if tag not in local:
            raise SyncError(not_on_device(tag, local, where), path=str(where))
        return local[tag]
    raise UsageError(f"--release {tag}: {where} keeps no releases (a device directory or a "
                     "git checkout of a release does)", path=str(where))
