#!/usr/bin/env bash
# Validates SARIF logs, offline once its tools are cached:
#  1. the official SARIF 2.1.0 JSON schema (sarif-2.1.0.json, as Microsoft
#     ships it in the npm package @microsoft/sarif-multitool-linux), checked
#     by ajv (draft 2020-12) with ajv-formats, so "uri" / "uri-reference"
#     values (our percent-encoding) are checked as well. This is the gate.
#  2. Microsoft's own validator, `Sarif.Multitool validate` from the same
#     package, with its SARIF and GitHub (Gh) rule kinds, for what a schema
#     cannot say (a ruleIndex past the end of rules[], a missing region line).
#     It exits 0 whatever it finds and silently skips a document it cannot
#     deserialize, hence step 1; here its log is read and any error or
#     warning fails, but SARIF2005 (no informationUri: the project names no
#     home page, and each rule's help is inline).
#
# usage: validate-sarif.sh [--cache DIR] FILE...
#   --cache DIR  where the npm packages go (default $AIMODEL_BUILD_DIR or
#                build/, then sarif-validator); shared safely by parallel runs
# exit: 0 valid, 1 invalid, 2 usage error or validator could not be set up.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${AIMODEL_BUILD_DIR:-$ROOT_DIR/build}/sarif-validator"
# Pinned: the schema and the validators must not move under the tests.
MULTITOOL=@microsoft/sarif-multitool-linux@5.7.0
AJV=ajv@8.17.1
AJV_FORMATS=ajv-formats@3.0.1

if [ "${1:-}" = "--cache" ]; then
  [ $# -ge 2 ] || { echo "validate-sarif: --cache needs a DIR" >&2; exit 2; }
  CACHE="$2"
  shift 2
fi
if [ $# -eq 0 ]; then
  echo "usage: validate-sarif.sh [--cache DIR] FILE..." >&2
  exit 2
fi

setup_failed() {
  echo "validate-sarif: error: $*" >&2
  exit 2
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    setup_failed "node and npm are needed; install them with: sudo apt-get install -y nodejs npm"
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 || setup_failed "apt-get update failed"
  apt-get install -y -q --no-install-recommends nodejs npm >&2 ||
    setup_failed "apt-get install -y nodejs npm failed"
fi

# One installer at a time (ctest runs the unit test and lit in parallel); a
# stamp names the pinned versions, so changing a pin reinstalls.
mkdir -p "$CACHE"
STAMP="$CACHE/.installed-${MULTITOOL//\//_}-$AJV-$AJV_FORMATS"
exec 9>"$CACHE/.lock"
flock 9
if [ ! -f "$STAMP" ]; then
  echo "validate-sarif: installing $MULTITOOL $AJV $AJV_FORMATS into $CACHE" >&2
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
    "$MULTITOOL" "$AJV" "$AJV_FORMATS" >&2 || setup_failed "npm install failed"
  touch "$STAMP"
fi
flock -u 9

PACKAGE="$CACHE/node_modules/@microsoft/sarif-multitool-linux"
SCHEMA="$PACKAGE/sarif-2.1.0.json"
MULTITOOL_BIN="$PACKAGE/Sarif.Multitool"
[ -f "$SCHEMA" ] || setup_failed "no schema at $SCHEMA"
[ -x "$MULTITOOL_BIN" ] || chmod u+x "$MULTITOOL_BIN" 2>/dev/null ||
  setup_failed "no Sarif.Multitool at $MULTITOOL_BIN"
export NODE_PATH="$CACHE/node_modules"
# The multitool is a .NET program: needs no ICU this way.
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1

status=0

# Step 1: every file against the schema, all errors listed.
node -e '
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const [schemaPath, ...files] = process.argv.slice(1);
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
let bad = false;
for (const file of files) {
  let log;
  try {
    log = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    console.error(`${file}: not JSON: ${e.message}`);
    bad = true;
    continue;
  }
  if (validate(log)) continue;
  bad = true;
  for (const e of validate.errors)
    console.error(`${file}: schema: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}
process.exit(bad ? 1 : 0);
' "$SCHEMA" "$@" || status=1

# Step 2: the multitool, one file at a time, its findings read from its log.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for file in "$@"; do
  if ! "$MULTITOOL_BIN" validate "$file" --json-schema "$SCHEMA" \
    --rule-kind "Sarif;Gh" --output "$work/out.sarif" \
    --log ForceOverwrite >"$work/console" 2>&1; then
    cat "$work/console" >&2
    setup_failed "Sarif.Multitool failed on $file"
  fi
  node -e '
const fs = require("fs");
const [file, out] = process.argv.slice(1);
const run = JSON.parse(fs.readFileSync(out, "utf8")).runs[0];
let bad = false;
for (const inv of run.invocations || [])
  for (const n of [...(inv.toolExecutionNotifications || []),
                   ...(inv.toolConfigurationNotifications || [])])
    if ((n.level || "warning") === "error") {
      console.error(`${file}: multitool: ${JSON.stringify(n.message)}`);
      bad = true;
    }
// Accepted on purpose: SARIF2005 asks for an informationUri of the tool, and
// aimodel names no home page (the help of each rule is inline).
const accepted = new Set(["SARIF2005"]);
for (const r of run.results || []) {
  const level = r.level || "warning"; // SARIF: an absent level is "warning"
  if (level !== "error" && level !== "warning") continue;
  if (accepted.has(r.ruleId)) continue;
  const m = r.message || {};
  console.error(`${file}: ${r.ruleId} (${level}): ${m.text || m.id} ${JSON.stringify(m.arguments || [])}`);
  bad = true;
}
process.exit(bad ? 1 : 0);
' "$file" "$work/out.sarif" || status=1
done

if [ "$status" -eq 0 ]; then
  echo "validate-sarif: $# file(s) valid (SARIF 2.1.0 schema, Sarif.Multitool Sarif;Gh rules)"
fi
exit "$status"
