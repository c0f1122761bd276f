#!/usr/bin/env bash
# Neovim plugin tests: real Neovim, real rewind-lsp. Idempotent; safe to call from .ci/run.
#
#   editors/neovim/test/run.sh
#
# 1. installs Debian's neovim (0.7.2 on bookworm), tmux and patchelf when missing;
# 2. builds rewind-lsp from this repository;
# 3. per Neovim (Debian's, then those of newer Debian suites when they can be fetched): makes a
#    workspace with two agent turns through the CLI and runs the headless Lua suites; on the
#    first (0.7.2) and the newest Neovim, also the plugin installed as the README's native package
#    (pack/rewind/start/rewind, setup in init.lua, rewind-lsp on PATH);
# 4. drives one interactive Neovim in tmux through :RewindPreview and keeps what the screen
#    showed in $ARTIFACTS_DIR (default /tmp/rewind-artifacts) as nvim-preview.txt / .ansi.
# The last line is "N passed, N failed[, N skipped]"; the exit status is non-zero on any failure.
#
# env: ARTIFACTS_DIR, REWIND_NVIM_TEST_CACHE (where fetched Neovims are kept between runs),
#      REWIND_NVIM_SUITES (Debian suites whose Neovim also runs the suites; default "trixie sid":
#      0.10.x and the newest, 0.12.x; one that cannot be fetched is a skip; "" runs only the first
#      Neovim), NVIM (the first Neovim, default: nvim on PATH),
#      REWIND_LSP_BIN (test this server binary instead of building one),
#      REWIND_LAZY_NVIM (a lazy.nvim checkout: also run the README's lazy.nvim spec with it).
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
PLUG="$(cd "$HERE/.." && pwd)"
REPO="$(cd "$PLUG/../.." && pwd)"
ART="${ARTIFACTS_DIR:-/tmp/rewind-artifacts}"
CACHE="${REWIND_NVIM_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-nvim-test}"
mkdir -p "$ART" "$CACHE"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rewind-nvim-test.XXXXXX")"
TMUX_SOCK="rewind-nvim-test-$$"
cleanup() {
  tmux -L "$TMUX_SOCK" kill-server >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PASSED=0 FAILED=0 SKIPPED=0
T0=$(date +%s)
step() { echo "== [$(($(date +%s) - T0))s] $*"; }
ok() { PASSED=$((PASSED + 1)); echo "ok   - $*"; }
bad() { FAILED=$((FAILED + 1)); echo "FAIL - $*"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip - $*"; }
summary() {
  local s="$PASSED passed, $FAILED failed"
  [ "$SKIPPED" -gt 0 ] && s="$s, $SKIPPED skipped"
  echo "$s"
}
die() { bad "$*"; summary; exit 1; }

# ---------------------------------------------------------------------------
# 1. Debian packages
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
command -v nvim >/dev/null 2>&1 || installed neovim || missing+=(neovim)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v patchelf >/dev/null 2>&1 || missing+=(patchelf)
if ((${#missing[@]})); then
  step "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  APT=(-o DPkg::Lock::Timeout=300 -qq)
  # Update the lists once when they are empty or an install fails on stale lists.
  if ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then $SUDO apt-get "${APT[@]}" update; fi
  if ! $SUDO apt-get "${APT[@]}" install -y --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1; then
    $SUDO apt-get "${APT[@]}" update
    $SUDO apt-get "${APT[@]}" install -y --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1 ||
      { tail -20 "$WORK/apt.log"; die "apt-get install ${missing[*]}"; }
  fi
fi
NVIM="${NVIM:-$(command -v nvim)}"
[ -x "$NVIM" ] || die "no nvim after installing neovim"

# ---------------------------------------------------------------------------
# 2. The server under test
if [ -n "${REWIND_LSP_BIN:-}" ]; then
  BIN="$REWIND_LSP_BIN"
  step "server: $BIN (REWIND_LSP_BIN)"
else
  step "go build ./cmd/rewind-lsp"
  BIN="$WORK/bin/rewind-lsp"
  if ! (cd "$REPO" && go build -o "$BIN" ./cmd/rewind-lsp) >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log"
    die "go build ./cmd/rewind-lsp"
  fi
fi

# ---------------------------------------------------------------------------
# 3. Neovim versions
NVIMS=("$NVIM")
# Newer Neovims from newer Debian suites (trixie: 0.10.x; sid: 0.12.x, opt-in because it moves).
for suite in ${REWIND_NVIM_SUITES-trixie sid}; do
  dir="$CACHE/nvim-$suite"
  # A cached copy that no longer runs (moved, half-deleted) is fetched again.
  if [ ! -x "$dir/nvim" ] || ! "$dir/nvim" --headless -u NONE -i NONE -n +'qa!' </dev/null >/dev/null 2>&1; then
    step "fetch Neovim from Debian $suite"
    if ! bash "$HERE/fetch-nvim-debian.sh" "$suite" "$dir" >"$WORK/fetch-$suite.log" 2>&1; then
      rm -rf "$dir"
      skip "Neovim from Debian $suite: could not be fetched or run ($(tail -1 "$WORK/fetch-$suite.log"))"
      continue
    fi
  fi
  NVIMS+=("$dir/nvim")
done

# A workspace with two agent turns, made through the command line.
#   before turn 1: a.txt "alpha\nbeta\n", b.txt "one\n"
#   turn 1 "first prompt":  a.txt -> "alpha\nBETA\n", creates c.txt
#   turn 2 "second prompt": a.txt -> "alpha\nBETA\ngamma\n", deletes b.txt
make_workspace() { # WS STORE (an empty STORE: the default store under $REWIND_LSP_HOME)
  local ws="$1" store="$2"
  rm -rf "$ws"
  mkdir -p "$ws"
  [ -n "$store" ] && rm -rf "$store" && mkdir -p "$store"
  printf 'alpha\nbeta\n' >"$ws/a.txt"
  printf 'one\n' >"$ws/b.txt"
  printf 'keep\n' >"$ws/keep.txt"
  printf '*.log\n' >"$ws/.rewindignore"
  printf 'one\r\ntwo\r\n' >"$ws/crlf.txt"
  : >"$ws/empty.txt"
  local rw=("$BIN" --root "$ws")
  [ -n "$store" ] && rw+=(--store "$store")
  "${rw[@]}" turn start --prompt "first prompt" &&
    printf 'alpha\nBETA\n' >"$ws/a.txt" &&
    printf 'new file\n' >"$ws/c.txt" &&
    "${rw[@]}" turn end --summary "uppercased beta, added c.txt" &&
    "${rw[@]}" turn start --prompt "second prompt" &&
    printf 'alpha\nBETA\ngamma\n' >"$ws/a.txt" &&
    rm "$ws/b.txt" &&
    "${rw[@]}" turn end
}

# Runs one Lua suite in a fresh, isolated Neovim; adds its counts.
run_suite() {
  local nv="$1" suite="$2" tag="$3" ws="$4" store="$5"
  local home="$WORK/home-$tag"
  rm -rf "$home"
  mkdir -p "$home"/{state,data,config,cache,tmp}
  local log="$ART/$tag.stderr.log"
  local out
  out="$(cd "${ws:-$WORK}" && env HOME="$home" XDG_STATE_HOME="$home/state" XDG_DATA_HOME="$home/data" \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" TMPDIR="$home/tmp" \
    REWIND_LSP_HOME="$home/state/rewind-lsp" \
    REWIND_TEST_WS="$ws" REWIND_TEST_BIN="$BIN" REWIND_TEST_STORE="$store" \
    timeout 180 "$nv" --headless -u NONE -i NONE -n --cmd "set rtp^=$PLUG" --cmd 'runtime plugin/rewind.lua' \
    -c "luafile $HERE/$suite" </dev/null 2>"$log")"
  local rc=$?
  echo "$out" | sed "s/^/[$tag] /"
  cp -f "$home/cache/nvim/rewind.log" "$ART/$tag.plugin.log" 2>/dev/null || true
  local p f k
  p=$(echo "$out" | grep -c '^ok   - ')
  f=$(echo "$out" | grep -c '^FAIL - ')
  k=$(echo "$out" | grep -c '^skip - ')
  PASSED=$((PASSED + p))
  FAILED=$((FAILED + f))
  SKIPPED=$((SKIPPED + k))
  if ! echo "$out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'; then
    bad "[$tag] $suite did not finish (exit $rc); stderr in $log"
    tail -5 "$log" | sed 's/^/      /'
  elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    bad "[$tag] $suite exited $rc without a failed check"
  fi
}

# The plugin installed and configured as the README says, then packages_test.lua:
#   package: a symlink in the user's pack/rewind/start, `require("rewind").setup({})` in init.lua;
#   lazy:    the README's lazy.nvim spec (its `dir` pointed at this folder) given to a real
#            lazy.nvim checkout ($REWIND_LAZY_NVIM).
# Both with rewind-lsp on PATH and the default store.
run_layout() {
  local nv="$1" tag="$2" kind="$3"
  local home="$WORK/home-$tag" ws="$WORK/ws-$tag" pack
  rm -rf "$home"
  mkdir -p "$home"/{state,data/nvim/site/pack/rewind/start,config/nvim,cache,tmp,bin}
  ln -s "$BIN" "$home/bin/rewind-lsp"
  if [ "$kind" = package ]; then
    pack="$home/data/nvim/site/pack/rewind/start/rewind"
    ln -s "$PLUG" "$pack"
    printf 'require("rewind").setup({})\n' >"$home/config/nvim/init.lua"
  else
    pack="$PLUG"
    local spec
    spec="$(awk '/^```lua$/ {grab=1; buf=""; next} /^```$/ {if (grab && buf ~ /dir = /) {printf "%s", buf; exit} grab=0; next} grab {buf = buf $0 "\n"}' "$PLUG/README.md")"
    [ -n "$spec" ] || { bad "[$tag] no lazy.nvim spec (a lua block with dir =) in editors/neovim/README.md"; return; }
    spec="$(printf '%s' "$spec" | sed "s|dir = \"[^\"]*\"|dir = \"$PLUG\"|")"
    {
      printf 'vim.opt.rtp:prepend("%s")\n' "$REWIND_LAZY_NVIM"
      printf 'require("lazy").setup({\n%s\n}, { install = { missing = false }, checker = { enabled = false },\n' "$spec"
      printf '  change_detection = { enabled = false }, rocks = { enabled = false } })\n'
    } >"$home/config/nvim/init.lua"
  fi
  if ! REWIND_LSP_HOME="$home/state/rewind-lsp" make_workspace "$ws" "" >"$WORK/ws-$tag.log" 2>&1; then
    cat "$WORK/ws-$tag.log"
    bad "[$tag] making the two-turn workspace with the CLI"
    return
  fi
  local log="$ART/$tag.stderr.log" out
  out="$(cd "$ws" && env HOME="$home" XDG_STATE_HOME="$home/state" XDG_DATA_HOME="$home/data" \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" TMPDIR="$home/tmp" \
    PATH="$home/bin:$PATH" REWIND_LSP_HOME="$home/state/rewind-lsp" \
    REWIND_TEST_WS="$ws" REWIND_TEST_PACK="$pack" REWIND_TEST_HELP="$([ "$kind" = package ] && echo 1)" \
    timeout 180 "$nv" --headless -i NONE -n -c "luafile $HERE/packages_test.lua" </dev/null 2>"$log")"
  local rc=$?
  echo "$out" | sed "s/^/[$tag] /"
  local p f
  p=$(echo "$out" | grep -c '^ok   - ')
  f=$(echo "$out" | grep -c '^FAIL - ')
  PASSED=$((PASSED + p)) FAILED=$((FAILED + f))
  if ! echo "$out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'; then
    bad "[$tag] packages_test.lua did not finish (exit $rc); stderr in $log"
    tail -5 "$log" | sed 's/^/      /'
  elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    bad "[$tag] packages_test.lua exited $rc without a failed check"
  fi
}

for nv in "${NVIMS[@]}"; do
  ver="$("$nv" --headless -u NONE -i NONE -n +'lua io.stdout:write(tostring(vim.version().major).."."..vim.version().minor.."."..vim.version().patch)' +'qa!' </dev/null 2>/dev/null)"
  step "Neovim $ver ($nv)"
  tag="nvim-$ver"
  run_suite "$nv" setup_test.lua "$tag-setup" "" ""
  if make_workspace "$WORK/ws-$ver" "$WORK/store-$ver" >"$WORK/ws-$ver.log" 2>&1; then
    run_suite "$nv" e2e_test.lua "$tag-e2e" "$WORK/ws-$ver" "$WORK/store-$ver"
  else
    cat "$WORK/ws-$ver.log"
    bad "[$tag] making the two-turn workspace with the CLI"
  fi
  if [ "$nv" = "${NVIMS[0]}" ] || [ "$nv" = "${NVIMS[${#NVIMS[@]} - 1]}" ]; then
    run_layout "$nv" "$tag-package" package
  fi
  # Revert one turn and agent blame: the suite makes its own turns.
  mkdir -p "$WORK/ws-rv-$ver" "$WORK/store-rv-$ver"
  run_suite "$nv" revert_test.lua "$tag-revert" "$WORK/ws-rv-$ver" "$WORK/store-rv-$ver"
  # A history longer than a page: :RewindLog and the pickers page back.
  mkdir -p "$WORK/ws-pg-$ver" "$WORK/store-pg-$ver"
  run_suite "$nv" paging_test.lua "$tag-paging" "$WORK/ws-pg-$ver" "$WORK/store-pg-$ver"
  # An agent's own rewind: the plugin's message and :Rewind limited to paths.
  mkdir -p "$WORK/ws-ar-$ver" "$WORK/store-ar-$ver"
  run_suite "$nv" agentrewind_test.lua "$tag-agentrewind" "$WORK/ws-ar-$ver" "$WORK/store-ar-$ver"
  # Steps (one tool call each): :RewindLog, the pickers, completion, and 2.2 as a target.
  mkdir -p "$WORK/ws-st-$ver" "$WORK/store-st-$ver"
  run_suite "$nv" steps_test.lua "$tag-steps" "$WORK/ws-st-$ver" "$WORK/store-st-$ver"
done
# lazy.nvim (Neovim 0.8+) on the newest Neovim, with a real lazy.nvim only.
newest="${NVIMS[${#NVIMS[@]} - 1]}"
if [ -z "${REWIND_LAZY_NVIM:-}" ]; then
  skip "lazy.nvim spec of the README: lazy.nvim is not installable here (not in Debian or on npm; no GitHub); set REWIND_LAZY_NVIM to a lazy.nvim checkout to run it"
elif ! "$newest" --headless -u NONE -i NONE -n +'lua if vim.fn.has("nvim-0.8") == 0 then vim.cmd("cquit 1") end' +'qa!' </dev/null >/dev/null 2>&1; then
  skip "lazy.nvim spec of the README: lazy.nvim needs Neovim 0.8+; the newest here is $("$newest" --version | head -1)"
else
  step "lazy.nvim ($REWIND_LAZY_NVIM) with the README's spec on $newest"
  run_layout "$newest" "lazy" lazy
fi

# ---------------------------------------------------------------------------
# 4. Interactive: a real TUI Neovim in tmux, :RewindPreview 1, capture-pane.
step "tmux: :RewindPreview in a real terminal ($NVIM)"
WS="$WORK/ws-tmux" STORE="$WORK/store-tmux" H="$WORK/home-tmux"
mkdir -p "$H"/{state,data,config,cache,tmp}
if make_workspace "$WS" "$STORE" >"$WORK/ws-tmux.log" 2>&1; then
  cat >"$H/init.lua" <<EOF
vim.opt.rtp:prepend('$PLUG')
vim.cmd('runtime plugin/rewind.lua')
vim.o.shortmess = vim.o.shortmess .. 'I'
require('rewind').setup({ cmd = { '$BIN' }, store_dir = '$STORE' })
EOF
  tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s e2e -x 120 -y 30 \
    "cd '$WS' && env TERM=xterm-256color HOME='$H' XDG_STATE_HOME='$H/state' XDG_DATA_HOME='$H/data' XDG_CONFIG_HOME='$H/config' XDG_CACHE_HOME='$H/cache' TMPDIR='$H/tmp' '$NVIM' -u '$H/init.lua' -i NONE -n a.txt"
  cap() { tmux -L "$TMUX_SOCK" capture-pane -p "$@" -t e2e 2>/dev/null || true; }
  # Wait on what the screen shows: the file, then the preview's own statusline.
  waitfor() {
    local pattern="$1" i
    for i in $(seq 1 300); do
      cap | grep -q -- "$pattern" && return 0
      sleep 0.1
    done
    return 1
  }
  if waitfor 'gamma'; then
    tmux -L "$TMUX_SOCK" send-keys -t e2e ':RewindPreview 1' Enter
    if waitfor ']f next' && waitfor 'turn 1'; then
      # The diff highlighting arrives with the same redraw as the statusline; poll until
      # the screen stops changing, so the capture is what a person would see.
      prev="" cur=""
      for i in $(seq 1 50); do
        cur="$(cap -e)"
        [ -n "$prev" ] && [ "$cur" = "$prev" ] && break
        prev="$cur"
        sleep 0.1
      done
      cap >"$ART/nvim-preview.txt"
      cap -e >"$ART/nvim-preview.ansi"
      ok "tmux: :RewindPreview opened (capture in $ART/nvim-preview.txt)"
      screen="$ART/nvim-preview.txt"
      # Left: the current a.txt; right: turn 1's start; side by side on one row.
      grep -Eq 'alpha.*[│|].*alpha' "$screen" && ok "tmux: both sides show a.txt's first line side by side" ||
        bad "tmux: side-by-side diff rows"
      grep -Eq 'BETA.*[│|].*beta' "$screen" && ok "tmux: changed line BETA (now) vs beta (turn 1) on one row" ||
        bad "tmux: changed line row"
      grep -q 'gamma' "$screen" && ok "tmux: added line gamma shown on the current side" || bad "tmux: gamma"
      grep -q 'now: a.txt' "$screen" && grep -q 'turn 1' "$screen" && ok "tmux: statuslines name both sides" ||
        bad "tmux: statuslines"
      grep -q $'\e\[' "$ART/nvim-preview.ansi" && ok "tmux: capture has colours (diff highlighting)" || bad "tmux: no colours"
      # ]f moves to the next file (b.txt, created by the rewind: empty left side)
      tmux -L "$TMUX_SOCK" send-keys -t e2e ']f'
      if waitfor 'b.txt (does not exist)'; then
        cap >"$ART/nvim-preview-2.txt"
        grep -Eq '[│|].*one' "$ART/nvim-preview-2.txt" && ok "tmux: ]f shows b.txt (to be created) against an empty side" ||
          bad "tmux: ]f b.txt content"
      else
        cap >"$ART/nvim-preview-2.txt"
        bad "tmux: ]f did not move to b.txt (screen in $ART/nvim-preview-2.txt)"
      fi
    else
      cap >"$ART/nvim-preview.txt"
      bad "tmux: :RewindPreview did not show the diff (screen in $ART/nvim-preview.txt)"
    fi
  else
    cap >"$ART/nvim-preview.txt"
    bad "tmux: Neovim did not show a.txt (screen in $ART/nvim-preview.txt)"
  fi
  tmux -L "$TMUX_SOCK" send-keys -t e2e Escape ':qa!' Enter
else
  cat "$WORK/ws-tmux.log"
  bad "tmux: making the two-turn workspace with the CLI"
fi

step "done (artifacts in $ART)"
summary
[ "$FAILED" = 0 ]
