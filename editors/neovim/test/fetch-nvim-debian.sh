#!/usr/bin/env bash
# fetch-nvim-debian.sh SUITE DIR — unpack the Neovim of a newer Debian suite (trixie: 0.10.x,
# sid: 0.12.x) into DIR without touching the system, relinked against that suite's own loader
# and libraries (bookworm's glibc is too old for them). Result: DIR/nvim, a wrapper that sets
# VIMRUNTIME. Needs apt (a Debian mirror), dpkg-deb and patchelf. On any failure it exits
# non-zero and leaves nothing behind.
set -euo pipefail
SUITE="$1" DEST="$2"
ARCH="$(dpkg --print-architecture)"
case "$ARCH" in
  amd64) TRIPLET=x86_64-linux-gnu LOADER=ld-linux-x86-64.so.2 ;;
  arm64) TRIPLET=aarch64-linux-gnu LOADER=ld-linux-aarch64.so.1 ;;
  *) echo "fetch-nvim-debian: unsupported architecture $ARCH" >&2; exit 1 ;;
esac
command -v patchelf >/dev/null || { echo "fetch-nvim-debian: patchelf is not installed" >&2; exit 1; }
WORK="$DEST.partial"
rm -rf "$WORK" "$DEST"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/{lists/partial,archives/partial,debs,root}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" >"$WORK/sources.list"
# A private apt state: the system's sources, lists, cache and dpkg status stay untouched.
APT=(-o Dir::Etc::SourceList="$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists="$WORK/lists" -o Dir::Cache::Archives="$WORK/archives"
  -o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="" -o Dir::State::status=/dev/null
  -o APT::Sandbox::User=root -o Acquire::Retries=2)
apt-get "${APT[@]}" update -qq
# neovim and everything it needs at run time (real packages only; no recommends).
mapfile -t PKGS < <(apt-cache "${APT[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | grep -v '<' | sort -u)
[ "${#PKGS[@]}" -gt 1 ] || { echo "fetch-nvim-debian: no neovim in $SUITE" >&2; exit 1; }
(cd "$WORK/debs" && apt-get "${APT[@]}" download -qq "${PKGS[@]}")
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$WORK/root"; done
mv "$WORK/root" "$DEST.root"
mkdir -p "$DEST"
mv "$DEST.root" "$DEST/root"
LIB="$DEST/root/usr/lib/$TRIPLET"
[ -e "$LIB/$LOADER" ] || LIB="$DEST/root/lib/$TRIPLET"
# Relink instead of running through the loader: nvim >= 0.10 re-executes /proc/self/exe for its
# TUI. Child processes (the language server, shells) keep the system's loader and libc.
if ! patchelf --set-interpreter "$LIB/$LOADER" --force-rpath --set-rpath "$LIB" "$DEST/root/usr/bin/nvim"; then
  rm -rf "$DEST"; exit 1
fi
cat >"$DEST/nvim" <<'SH'
#!/bin/sh
R="$(cd "$(dirname "$0")" && pwd)/root"
VIMRUNTIME="$R/usr/share/nvim/runtime" exec "$R/usr/bin/nvim" "$@"
SH
chmod +x "$DEST/nvim"
if ! "$DEST/nvim" --headless -u NONE -i NONE -n +'lua io.stdout:write(tostring(vim.version()) .. "\n")' +'qa!' </dev/null; then
  echo "fetch-nvim-debian: the unpacked nvim does not run" >&2
  rm -rf "$DEST"; exit 1
fi
