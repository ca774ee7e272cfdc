"""Shipping releases: the one git layer for release/sync, signing, release tags on the
artifacts branch, device directories (layout, lock, atomic switch, prune), sync and the
operator commands (status, releases, rollback). Imports index; never build internals.
"""
