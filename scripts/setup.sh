#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: install missing Debian packages, configure, build.
# Sourced, not executed: leaves BUILD_DIR and AIMODEL set for the caller.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${AIMODEL_BUILD_DIR:-$ROOT_DIR/build}"

# Pinned by major version; everything the build, the tests and the benchmarks use.
PACKAGES=(cmake ninja-build g++ pkg-config
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          nlohmann-json3-dev libcli11-dev libboost-graph-dev libssl-dev
          libgtest-dev libbenchmark-dev clang libclang-rt-dev clang-format-22
          pre-commit git chromium cmark-gfm man-db file zsh)

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

install_packages() {
  local missing
  missing=$(missing_packages | tr '\n' ' ')
  [ -z "${missing// }" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing Debian packages; install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    exit 2
  fi
  echo "installing: $missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing >&2
}

configure_and_build() {
  local llvm_config mlir_dir
  llvm_config=$(command -v llvm-config-22)
  mlir_dir="$("$llvm_config" --libdir)/cmake/mlir"
  # Configured once; again whenever flags are given, so a folder configured
  # otherwise never builds without them (cmake keeps the rest of its cache).
  if [ ! -f "$BUILD_DIR/build.ninja" ] || [ -n "${AIMODEL_CMAKE_ARGS:-}" ]; then
    # shellcheck disable=SC2086  # AIMODEL_CMAKE_ARGS is a list of -D flags
    cmake -S "$ROOT_DIR" -B "$BUILD_DIR" -G Ninja -DMLIR_DIR="$mlir_dir" \
      ${AIMODEL_CMAKE_ARGS:-} "$@" >&2
  fi
  cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
}

install_packages
configure_and_build
AIMODEL="$BUILD_DIR/bin/aimodel"
