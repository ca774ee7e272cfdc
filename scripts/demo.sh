#!/usr/bin/env bash
# The main job on the bundled example knowledge: install, check, build, release to a local
# artifacts repository, sync a device directory from it (signed, verified), then ask it
# questions with citations and evaluate a decision table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
demo=.kb-demo
mkdir -p "$demo"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "kb check knowledge/"
kb check knowledge/

step "kb build"
kb build

step "kb release → $demo/artifacts.git (signed)"
[ -d "$demo/artifacts.git" ] || git init -q --bare "$demo/artifacts.git"
[ -f "$demo/release.key" ] || kb keygen "$demo/release.key"
kb release --remote "$demo/artifacts.git" --sign-key "$demo/release.key"

step "kb sync → device $demo/device"
kb sync "$demo/artifacts.git" --to "$demo/device" --trusted-key "$demo/release.key.pub"
kb status --to "$demo/device"

for q in "E17 报警后怎么复位？" "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？" \
         "How do I rotate a client secret?" "How do I bake sourdough bread?"; do
  step "kb query \"$q\""
  kb query --index "$demo/device" -k 2 "$q"
done

step "kb table eval knowledge/crops/wheat-scab.md 温度=22 相对湿度=90 连续降雨天数=4"
kb table eval knowledge/crops/wheat-scab.md 温度=22 相对湿度=90 连续降雨天数=4
