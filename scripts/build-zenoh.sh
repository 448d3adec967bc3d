#!/usr/bin/env bash
# Builds mqgate-zenoh, the Zenoh measurement helper (tools/mqgate-zenoh), in
# release mode. Cargo keeps what it built: the first build compiles Zenoh
# (many minutes on two cores), later ones return in seconds. Set
# CARGO_TARGET_DIR to keep the build outside the work tree (internal/driver/zenoh/zenohhelper
# finds the binary there too).
#
#   scripts/build-zenoh.sh          build (or reuse) the helper
#   scripts/build-zenoh.sh test     also run its Rust unit tests
#   scripts/build-zenoh.sh static   build it linked statically (glibc, +crt-static) for
#                                   the container image, into target/x86_64-unknown-linux-gnu/release
#   scripts/build-zenoh.sh check-static FILE
#                                   exit 0 when FILE is a static x86-64 ELF program (one the
#                                   image, which has no dynamic loader, can run), else exit 2
#                                   saying why; builds nothing and needs no cargo
set -euo pipefail

# le FILE OFFSET N: the N bytes of FILE at OFFSET as a little-endian unsigned number.
le() {
  local -a b
  read -r -a b < <(od -An -v -t u1 -j "$2" -N "$3" "$1")
  if [ "${#b[@]}" -ne "$3" ]; then
    echo "-1"
    return
  fi
  local v=0 i
  for ((i = $3 - 1; i >= 0; i--)); do v=$((v * 256 + b[i])); done
  echo "$v"
}

# check_static FILE: the ELF header and program headers say a static x86-64
# program: class 64-bit, little-endian, machine x86-64 (62), no PT_INTERP
# (type 3) program header, i.e. no dynamic loader needed.
check_static() {
  local f=$1 what="build-zenoh: check-static: $1"
  if [ ! -f "$f" ]; then
    echo "$what: no such file; build the static helper with: make zenoh-static" >&2
    exit 2
  fi
  if [ "$(le "$f" 0 4)" != 1179403647 ] || [ "$(le "$f" 4 1)" != 2 ] || [ "$(le "$f" 5 1)" != 1 ]; then
    echo "$what: not a 64-bit little-endian ELF program" >&2
    exit 2
  fi
  local machine
  machine=$(le "$f" 18 2)
  if [ "$machine" != 62 ]; then
    echo "$what: built for ELF machine $machine, want x86-64 (62): unset MQGATE_ZENOH_HELPER to build the helper for it" >&2
    exit 2
  fi
  local phoff phentsize phnum i
  phoff=$(le "$f" 32 8)
  phentsize=$(le "$f" 54 2)
  phnum=$(le "$f" 56 2)
  if [ "$phoff" -le 0 ] || [ "$phentsize" -lt 4 ] || [ "$phnum" -le 0 ]; then
    echo "$what: no program headers: not a program" >&2
    exit 2
  fi
  for ((i = 0; i < phnum; i++)); do
    case $(le "$f" $((phoff + i * phentsize)) 4) in
    -1)
      echo "$what: truncated program headers" >&2
      exit 2
      ;;
    3)
      echo "$what: dynamically linked (it names a program interpreter), the image has no dynamic loader: name the static build (target/x86_64-unknown-linux-gnu/release/mqgate-zenoh) in MQGATE_ZENOH_HELPER, or unset it to build one" >&2
      exit 2
      ;;
    esac
  done
}

if [ "${1:-}" = check-static ]; then
  if [ $# -ne 2 ]; then
    echo "usage: scripts/build-zenoh.sh check-static FILE" >&2
    exit 2
  fi
  check_static "$2"
  # Built from older sources than the work tree's? Say so; the file is still used.
  src="$(dirname "$0")/../tools/mqgate-zenoh"
  if [ -n "$(find "$src/src" "$src/Cargo.toml" "$src/Cargo.lock" -newer "$2" -print -quit 2>/dev/null)" ]; then
    echo "build-zenoh: warning: $2 is older than tools/mqgate-zenoh's sources; unset MQGATE_ZENOH_HELPER to rebuild it" >&2
  fi
  exit 0
fi

cd "$(dirname "$0")/../tools/mqgate-zenoh"

if ! command -v cargo >/dev/null 2>&1; then
  echo "build-zenoh: cargo is not installed; install Rust (rustup or the distribution's cargo) to build mqgate-zenoh" >&2
  exit 2
fi

if [ "${1:-}" = static ]; then
  # An explicit --target keeps RUSTFLAGS off the build scripts and proc
  # macros, which must stay dynamic.
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
    nice -n "${NICE:-19}" cargo build --release --locked --target x86_64-unknown-linux-gnu
  echo "mqgate-zenoh (static): ${CARGO_TARGET_DIR:-$PWD/target}/x86_64-unknown-linux-gnu/release/mqgate-zenoh"
  exit 0
fi
nice -n "${NICE:-19}" cargo build --release --locked
if [ "${1:-}" = test ]; then
  nice -n "${NICE:-19}" cargo test --release --locked
fi
echo "mqgate-zenoh: ${CARGO_TARGET_DIR:-$PWD/target}/release/mqgate-zenoh"
