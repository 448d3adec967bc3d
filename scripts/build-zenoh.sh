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
set -euo pipefail
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
