#!/usr/bin/env bash
# install-deps.sh: the Debian packages the build, tests and benchmarks use.
# Idempotent; installs only what is missing (needs root, as on CI).
set -eu
pkgs="build-essential groff-base clang libboost-context-dev qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      gcc-riscv64-linux-gnu libc6-dev-riscv64-cross openmpi-bin libopenmpi-dev gnuplot-nox
      libx11-dev xvfb xauth x11-apps imagemagick xdotool strace chromium clang-format"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    echo "install-deps: missing packages (need root):$missing" >&2
  fi
fi
command -v cargo >/dev/null 2>&1 || [ -x "$HOME/.cargo/bin/cargo" ] || { echo "install-deps: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
# rustfmt checks the compiler's style (scripts/test.d/01-style.sh); rustup's
# minimal profile leaves it out
export PATH="$HOME/.cargo/bin:$PATH"
command -v rustfmt >/dev/null 2>&1 || { command -v rustup >/dev/null 2>&1 && rustup component add rustfmt >/dev/null 2>&1; } || true
