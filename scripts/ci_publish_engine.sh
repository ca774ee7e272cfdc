#!/usr/bin/env bash
# Publish the release just made by scripts/ci_release.sh into a Milvus engine (optional CI
# step; .github/workflows/release.yml runs it only when the KB_MILVUS_URL secret is set).
#
#   KB_MILVUS_URL=milvus://HOST:PORT[/DB] [KB_MILVUS_TOKEN=user:password] \
#     bash scripts/ci_publish_engine.sh release-out/TAG.bundle
#
# The release is synced from its offline bundle onto a scratch device directory first, so
# it is verified exactly as a device would verify it (signature by kb.toml
# release.trusted_keys, manifest hashes) before `kb publish` verifies it again and loads it.
set -euo pipefail
KB=${KB:-kb}
bundle=${1:?usage: ci_publish_engine.sh RELEASE.bundle}
: "${KB_MILVUS_URL:?set KB_MILVUS_URL (milvus://HOST:PORT[/DB])}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$KB" sync "$bundle" --to "$tmp/device" >&2
args=(--engine "$KB_MILVUS_URL" --index "$tmp/device" --json)
if [ -n "${KB_MILVUS_TOKEN:-}" ]; then
  (umask 077 && printf '%s' "$KB_MILVUS_TOKEN" > "$tmp/token")
  args+=(--token-file "$tmp/token")
fi
"$KB" publish "${args[@]}"
