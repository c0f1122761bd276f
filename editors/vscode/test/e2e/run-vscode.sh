#!/usr/bin/env bash
# Starts a throwaway code-server with the packaged extension and drives it with drive.mjs. No
# rewind-lsp is on PATH and rewind.serverPath is unset: the extension runs the server its .vsix
# carries.
# env: CODE_SERVER, VSIX, LSP_BIN (the CLI for drive.mjs, by absolute path), RUN_DIR (scratch,
#      wiped), WS (workspace), STORE, EXPECT, ARTIFACTS_DIR (screenshots), TOOLS_NODE_MODULES
#      (where playwright-core is), EXT_VERSION (the version the bundled server must report)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
: "${CODE_SERVER:?}" "${VSIX:?}" "${LSP_BIN:?}" "${RUN_DIR:?}" "${WS:?}" "${STORE:?}" "${EXPECT:?}" "${ARTIFACTS_DIR:?}" "${TOOLS_NODE_MODULES:?}"
RUN=$RUN_DIR
rm -rf "$RUN/cs"; mkdir -p "$RUN/cs"/{user-data/User,user-data/Machine,extensions,home} "$ARTIFACTS_DIR"
CS=$RUN/cs
# A machine with no rewind-lsp on PATH: drop every PATH folder that holds one.
clean=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do [ -n "$d" ] && [ ! -e "$d/rewind-lsp" ] && clean="${clean:+$clean:}$d"; done
export PATH="$clean"
if command -v rewind-lsp >/dev/null; then echo "rewind-lsp is still on PATH: $(command -v rewind-lsp)"; exit 1; fi
export HOME="$CS/home" XDG_CONFIG_HOME="$CS/home/.config" XDG_DATA_HOME="$CS/home/.local/share" \
  XDG_CACHE_HOME="$CS/home/.cache" XDG_STATE_HOME="$CS/home/.local/state"
export REWIND_LSP_HOME="$CS/home/rewind-lsp-home"   # never the user's real store
# Short private TMPDIR: the extension host's vscode-ipc-*.sock must fit in 108 bytes.
export TMPDIR="$(mktemp -d /tmp/rwe2e.XXXXXX)"
export REWIND_LSP_E2E_EVENTS="$CS/events.jsonl"
: > "$REWIND_LSP_E2E_EVENTS"
cat > "$CS/user-data/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "diffEditor.useInlineViewWhenSpaceIsLimited": false,
  "diffEditor.renderSideBySide": true,
  "git.enabled": false,
  "files.autoSave": "off",
  "workbench.editor.enablePreview": false,
  "workbench.editor.enablePreviewFromQuickOpen": false,
  "rewind.trace.server": "verbose"
}
JSON
# Machine-scoped settings live in code-server's remote ("Machine") settings. No rewind.serverPath.
mkdir -p "$CS/user-data/Machine"
cat > "$CS/user-data/Machine/settings.json" <<JSON
{
  "rewind.storeDir": "$STORE"
}
JSON
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$CS/config.yaml"
COMMON=(--config "$CS/config.yaml" --user-data-dir "$CS/user-data" --extensions-dir "$CS/extensions")
# Offline install of the .vsix into the throwaway extensions folder.
"$CODE_SERVER" "${COMMON[@]}" --install-extension "$VSIX" > "$CS/install-ext.log" 2>&1 || { cat "$CS/install-ext.log"; exit 1; }
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
# Own session/process group, so cleanup also ends the extension host and our language server.
setsid "$CODE_SERVER" "${COMMON[@]}" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override --ignore-last-opened "$WS" \
  > "$CS/code-server.log" 2>&1 &
CS_PID=$!
cleanup() {
  kill -TERM -- "-$CS_PID" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
  wait "$CS_PID" 2>/dev/null || true
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
export LSP_BIN STORE WS EXPECT ARTIFACTS_DIR TOOLS_NODE_MODULES EXT_VERSION
CS_URL="http://127.0.0.1:$PORT/?folder=$WS" RUN="$CS" \
  node "${DRIVE:-$HERE/drive.mjs}"
