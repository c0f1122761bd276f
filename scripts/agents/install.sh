#!/usr/bin/env bash
# Installs the coding agents the tests drive (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code, droid, Cline, pi, oh-my-pi, opencode, Kilo, codex-acp, claude-code-acp), at the
# versions pinned by scripts/agents/<agent>/package-lock.json, from the npm registry, into a cache
# outside the clone. Idempotent: an agent whose pinned install is already there and runs is
# skipped. Every agent's command is linked into one folder, printed as the last line of stdout:
#
#     export REWIND_LSP_AGENTS="$(scripts/agents/install.sh)"
#
# which is how the Go tests find them (testkit/agents). Progress goes to stderr.
#
# env: REWIND_LSP_AGENTS_CACHE  the cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-test/agents)
#      AGENTS                   which agents (default "claude codex gemini copilot qwen droid cline pi omp opencode kilo codex-acp claude-code-acp")
#
# Layout of the cache:
#     <agent>-<hash of its package.json and lock>/   one `npm ci` per pinned agent; .ok when done
#     node-<version>/                                Node from npm, only when the system's is < 20
#     bin/                                           claude, codex, gemini, copilot, qwen, droid, cline, pi, omp, opencode, kilo, codex-acp, claude-code-acp (and node, bun)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${REWIND_LSP_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-test/agents}"
AGENTS="${AGENTS:-claude codex gemini copilot qwen droid cline pi omp opencode kilo codex-acp claude-code-acp}"
NODE_PIN=22.23.3 # installed from npm when the system's Node is missing or older than 20 (Gemini CLI's minimum)
BIN="$CACHE/bin"
mkdir -p "$BIN"

say() { echo "agents: $*" >&2; }
die() { say "$*"; exit 1; }
command -v npm >/dev/null || die "npm is not installed (apt-get install npm)"

# Node: the agents' launchers are Node scripts (Claude Code's and Copilot's start a native binary).
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major node)" -lt 20 ]; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) die "no Node ≥ 20 and none on npm for $(uname -m)" ;; esac
  dir="$CACHE/node-$NODE_PIN"
  node="$dir/node_modules/node-linux-$arch/bin/node"
  if [ ! -f "$dir/.ok" ] || [ "$(node_major "$node")" -lt 20 ]; then
    say "Node $(node --version 2>/dev/null || echo missing) is older than 20: installing node-linux-$arch@$NODE_PIN from npm"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --no-save "node-linux-$arch@$NODE_PIN" >"$dir/npm.log" 2>&1) ||
      { tail -20 "$dir/npm.log" >&2; die "npm install node-linux-$arch@$NODE_PIN"; }
    [ "$(node_major "$node")" -ge 20 ] || die "node-linux-$arch@$NODE_PIN installed but does not run"
    touch "$dir/.ok"
  fi
  ln -sfn "../${node#"$CACHE"/}" "$BIN/node"
  export PATH="$BIN:$PATH"
fi

# runs runs an agent's command in a scratch home: agents write their folders (~/.gemini, ~/.codex)
# even for --version, and this script touches nothing of the user's.
runs() { mkdir -p "$CACHE/.home" && HOME="$CACHE/.home" PATH="$BIN:$PATH" "$@"; }

# probe_of prints the argument that shows an installed agent runs (codex-acp has no --version).
probe_of() {
  case "$1" in codex-acp) echo --help ;; claude-code-acp) echo --help ;; *) echo --version ;; esac
}

# bin_of prints the command an agent's package installs.
bin_of() {
  case "$1" in claude) echo claude ;; codex) echo codex ;; gemini) echo gemini ;; copilot) echo copilot ;; qwen) echo qwen ;; droid) echo droid ;; cline) echo cline ;; pi) echo pi ;; omp) echo omp ;; opencode) echo opencode ;; kilo) echo kilo ;; codex-acp) echo codex-acp ;; claude-code-acp) echo claude-code-acp ;; *) return 1 ;; esac
}

# path_of prints where an agent's command is in its install: npm's bin folder, except for the
# agents pinned as their Linux x64 binary package alone, which declares no command (droid's; and
# opencode's and Kilo's launcher packages list every platform's binary, and a lock that names them
# cannot be installed from a registry that lacks some).
path_of() {
  case "$1" in
  droid) echo "node_modules/@factory/cli-linux-x64/bin/droid" ;;
  opencode) echo "node_modules/opencode-linux-x64/bin/opencode" ;;
  kilo) echo "node_modules/@kilocode/cli-linux-x64/bin/kilo" ;;
  *) echo "node_modules/.bin/$(bin_of "$1")" ;;
  esac
}

for agent in $AGENTS; do
  pkg="$HERE/$agent"
  [ -f "$pkg/package-lock.json" ] || die "unknown agent $agent (no $pkg/package-lock.json)"
  cmd=$(bin_of "$agent")
  path=$(path_of "$agent")
  want=$(cd "$pkg" && node -p 'const l=require("./package-lock.json"),d=Object.keys(l.packages[""].dependencies)[0]; d+"@"+l.packages["node_modules/"+d].version')
  key=$(cat "$pkg/package.json" "$pkg/package-lock.json" | sha256sum | cut -c1-16)
  dest="$CACHE/$agent-$key"
  start=$SECONDS
  # oh-my-pi runs on Bun (#!/usr/bin/env bun): the Bun its lock pins is linked beside it.
  [ "$agent" = omp ] && ln -sfn "../omp-$key/node_modules/@oven/bun-linux-x64/bin/bun" "$BIN/bun"
  if [ -f "$dest/.ok" ] && runs "$dest/$path" "$(probe_of "$agent")" >/dev/null 2>&1; then
    say "$want: cached in $dest"
  else
    say "$want: npm ci into $dest"
    rm -rf "$dest" && mkdir -p "$dest"
    cp "$pkg/package.json" "$pkg/package-lock.json" "$dest/"
    # Claude Code's install script copies its native binary into place. Gemini CLI's would build
    # node-pty and keytar from source, with headers fetched from nodejs.org: it runs without
    # them (node-pty has a prebuilt twin, @lydell/node-pty), so its scripts are skipped; pi's and
    # oh-my-pi's (koffi, onnxruntime downloads) are not needed to run them either.
    scripts=(--foreground-scripts)
    case "$agent" in gemini | pi | omp) scripts=(--ignore-scripts) ;; esac
    # Qwen Code's @teddyzhu/clipboard names optional platform packages this registry lacks (all but
    # linux-x64-gnu), so its lock cannot list them and `npm ci` calls it out of sync: `npm install`
    # takes the lock as it is, and the lock must come out unchanged (every version still pinned).
    # oh-my-pi's lock cannot hold its native package's other platforms (the registry has only
    # linux-x64's), and `npm ci` refuses a lock without them: the same.
    install=ci; case "$agent" in qwen | omp) install=install ;; esac
    if ! (cd "$dest" && npm "$install" --no-audit --no-fund "${scripts[@]}" >"$dest/npm.log" 2>&1); then
      tail -30 "$dest/npm.log" >&2; die "npm $install of $want failed (log: $dest/npm.log)"
    fi
    cmp -s "$pkg/package-lock.json" "$dest/package-lock.json" || die "npm $install of $want changed its lock: regenerate $pkg/package-lock.json"
    version=$(runs "$dest/$path" "$(probe_of "$agent")" 2>&1 | head -1) || die "$want installed but \`$cmd $(probe_of "$agent")\` fails: $version"
    touch "$dest/.ok"
    say "$want: installed in $((SECONDS - start))s ($version)"
  fi
  ln -sfn "../$agent-$key/$path" "$BIN/$cmd"
  # Older pinned installs of this agent are removed once the new one works (by the 16-character key
  # only: "codex-*" would also take codex-acp's).
  for old in "$CACHE/$agent"-????????????????; do [ "$old" = "$dest" ] || rm -rf "$old"; done
done
echo "$BIN"
