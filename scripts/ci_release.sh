#!/usr/bin/env bash
# Release steps for every push to main (.github/workflows/release.yml runs exactly this;
# tests/test_release_ci.py runs it locally against a bare artifacts repository).
#
#   1. seed the embedding cache from the previous release when .kb-cache was not restored
#      (a depth-1 clone of the artifacts branch: manifest.json + data/ hold the vectors)
#   2. kb build        3. kb release (+ push branch and tag to the artifacts repository)
#   4. write a release archive (tar.gz of the release commit) and an offline bundle
#
# Environment:
#   KB                    kb executable (default: kb on PATH)
#   KB_ARTIFACTS_REMOTE   artifacts repository URL or path (default: kb.toml release.remote)
#   KB_SIGN_KEY           Ed25519 private key file to sign the release (optional)
#   KB_RELEASE_OUT        where the archive, bundle and release.json go (default: release-out)
set -euo pipefail
KB=${KB:-kb}
OUT=${KB_RELEASE_OUT:-release-out}
REMOTE=${KB_ARTIFACTS_REMOTE:-}
BRANCH=kb-index
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build_args=(-q)
if [ -n "$REMOTE" ] && [ ! -d .kb-cache ] &&
   git ls-remote --exit-code "$REMOTE" "refs/heads/$BRANCH" >/dev/null 2>&1; then
  git clone -q --depth 1 --branch "$BRANCH" "$REMOTE" "$tmp/previous"
  build_args+=(--cache-from "$tmp/previous")
  echo "ci_release: seeding the embedding cache from the previous release" >&2
fi
"$KB" build "${build_args[@]}" >&2

release_args=(--json)
[ -n "$REMOTE" ] && release_args+=(--remote "$REMOTE")
[ -n "${KB_SIGN_KEY:-}" ] && release_args+=(--sign-key "$KB_SIGN_KEY")
"$KB" release "${release_args[@]}" > "$OUT/release.json"
tag=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tag"])' "$OUT/release.json")

git archive --format=tar.gz --prefix="$tag/" -o "$OUT/$tag.tar.gz" "refs/kb/tags/$tag"
"$KB" bundle create "$OUT/$tag.bundle" >/dev/null
echo "ci_release: $tag ($(cat "$OUT/release.json" | tr -d '\n' | tr -s ' '))" >&2
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "tag=$tag" >> "$GITHUB_OUTPUT"
fi
echo "$tag"
