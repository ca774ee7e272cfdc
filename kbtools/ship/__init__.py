"""Shipping releases from the knowledge repository to devices.

- `git`: the only place that runs git for releases, sync and bundles (one environment);
  release ref names (``kb-r<serial>``, ``refs/kb/*``) and what a source offers.
- `signing`: Ed25519 keys and signatures over release.json.
- `release`: a built dist/ -> one commit + annotated tag on the artifacts branch; the
  ``[release]`` settings of kb.toml.
- `verify`: what a release tree must be before anything of it is written (a closed set of
  regular files, exactly those its manifest lists); exporting it without following links.
- `trust`: the keys a device pins (first use, rotation, `kb trust`).
- `bundle`: the artifacts branch and tags as one file, for offline devices.
- `install`: check a release commit from git objects, export it, derive index/, verify it:
  the one path shared by sync and checkouts.
- `device`: a device directory on disk: lock, atomic switch of `current`, state, prune.
- `sync`: fetch, verify and install the newest release into a device directory.
- `checkout`: a git checkout of a release as an index (HEAD a release tag, clean work tree,
  installed into the clone's .git/kb/derived/); `open_index` for every client command.
- `operate`: what the operator commands call: status, releases, rollback.

Imports run one way: git and signing at the bottom; verify on git; release and bundle on
them; device on neither; trust on git, signing, verify and device; install on trust, verify and git; sync and
checkout on all of those;
operate on git and device only (no embedder, so `kb status` starts fast). May import config, errors, fsutil, `kbtools.index`
(layout, manifest, materialize) and `kbtools.embed` (the model check); never build, query,
or the CLI.
"""
