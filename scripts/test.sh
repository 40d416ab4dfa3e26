#!/usr/bin/env bash
# Build aimodel (installing what it needs) and run every test: GoogleTest and lit, via ctest.
set -euo pipefail
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"
