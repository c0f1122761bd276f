#!/usr/bin/env bash
# fetch-nvim-trixie.sh DIR — unpack Neovim 0.10.x from Debian trixie into DIR without touching
# the system, and relink it against trixie's own loader and libraries (bookworm's glibc is too old).
# Result: DIR/nvim (a wrapper that sets VIMRUNTIME). Needs apt (a Debian mirror), dpkg-deb, patchelf.
# Exits non-zero, leaving nothing behind, when any step fails (no mirror, no patchelf, ...).
set -euo pipefail
DEST="$1"
ARCH="$(dpkg --print-architecture)"
case "$ARCH" in amd64) TRIPLET=x86_64-linux-gnu; LOADER=ld-linux-x86-64.so.2 ;;
                arm64) TRIPLET=aarch64-linux-gnu; LOADER=ld-linux-aarch64.so.1 ;;
                *) echo "fetch-nvim-trixie: unsupported architecture $ARCH" >&2; exit 1 ;; esac
command -v patchelf >/dev/null || { echo "fetch-nvim-trixie: patchelf is not installed" >&2; exit 1; }
WORK="$DEST.partial"
rm -rf "$WORK" "$DEST"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/{lists/partial,archives/partial,debs,root}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian trixie main" > "$WORK/sources.list"
# A private apt state: the system's sources, lists and cache stay untouched.
APT=(-o Dir::Etc::SourceList="$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$WORK/lists" -o Dir::Cache::Archives="$WORK/archives"
     -o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="" -o APT::Sandbox::User=root
     -o Acquire::Retries=2)
apt-get "${APT[@]}" update -qq
PKGS=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2
      libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv libutf8proc3)
(cd "$WORK/debs" && apt-get "${APT[@]}" download -qq "${PKGS[@]}")
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$WORK/root"; done
LIB="$WORK/root/usr/lib/$TRIPLET"
[ -e "$LIB/$LOADER" ] || LIB="$WORK/root/lib/$TRIPLET"
# Relink rather than run through the loader: nvim >= 0.10 re-executes /proc/self/exe for its TUI.
# The final paths are under $DEST, so patch after the move.
mv "$WORK/root" "$DEST.root.tmp"
rm -rf "$DEST"; mkdir -p "$DEST"; mv "$DEST.root.tmp" "$DEST/root"
LIB="${LIB/$WORK\/root/$DEST/root}"
patchelf --set-interpreter "$LIB/$LOADER" --force-rpath --set-rpath "$LIB" "$DEST/root/usr/bin/nvim"
cat > "$DEST/nvim" <<'SH'
#!/bin/sh
R="$(cd "$(dirname "$0")" && pwd)/root"
VIMRUNTIME="$R/usr/share/nvim/runtime" exec "$R/usr/bin/nvim" "$@"
SH
chmod +x "$DEST/nvim"
if ! "$DEST/nvim" --headless -u NONE -i NONE -n +'lua io.stdout:write(tostring(vim.version()) .. "\n")' +'qa!' </dev/null; then
  echo "fetch-nvim-trixie: the unpacked nvim does not run" >&2; rm -rf "$DEST"; exit 1
fi
