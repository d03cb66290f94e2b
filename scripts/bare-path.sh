#!/bin/sh
# bare-path.sh DIR: fills DIR with links to every command on $PATH except the
# optional tools scripts/install-deps.sh adds (clang, qemu, cross compilers,
# Open MPI, Xvfb, Chromium, strace), and prints a PATH made of DIR alone: a machine
# with only Rust and a C compiler, as a newcomer's.  Used by the test of the
# skip rules (scripts/test.d/05-skips.sh) and to try `make test` that way:
#   PATH=$(sh scripts/bare-path.sh /tmp/bare) make test
d=${1:?usage: bare-path.sh DIR}
rm -rf "$d"; mkdir -p "$d"
IFS=:
for p in $PATH; do
  [ -d "$p" ] || continue
  for c in "$p"/*; do
    n=${c##*/}
    case $n in
      clang*|qemu-*|*-linux-gnu-gcc*|aarch64-*|riscv64-*|mpi*|ompi*|orte*|Xvfb|xvfb-run|chromium*|strace) continue ;;
    esac
    [ -x "$c" ] && [ ! -e "$d/$n" ] && ln -s "$c" "$d/$n"
  done
done
echo "$d"
