#!/usr/bin/env bash
# Build aimodel (installing what it needs) and audit the demo tree.
# Extra arguments go to `aimodel audit`, e.g. ./scripts/run.sh --format json
set -euo pipefail
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT_DIR"
exec "$AIMODEL" audit fixtures/trees/demo "$@"
