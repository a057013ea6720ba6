#!/usr/bin/env bash
# Lints an OpenAPI document with Redocly CLI's recommended ruleset and
# Spectral's spectral:oas ruleset, at the versions package-lock.json pins
# (run `npm ci` here first). Fails on any error or warning of either.
#
#   tools/openapi-lint/lint.sh openapi.json
set -euo pipefail
doc=$(realpath "$1")
cd "$(dirname "$0")"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The server writes one line; indented, the linters' line numbers mean something.
node -e 'const fs = require("fs");
fs.writeFileSync(process.argv[2], JSON.stringify(JSON.parse(fs.readFileSync(process.argv[1], "utf8")), null, 2) + "\n")' \
  "$doc" "$work/openapi.json"

echo "-- Redocly CLI $(npx --no-install redocly --version 2>/dev/null), ruleset recommended"
# Redocly's exit status ignores warnings: count them from its JSON report.
# The ignore file and the overrides name the document relative to the configuration.
cp redocly.yaml .redocly.lint-ignore.yaml .spectral.yaml "$work/"
npx --no-install redocly lint --config "$work/redocly.yaml" --format=json "$work/openapi.json" >"$work/redocly.json" 2>"$work/redocly.err" || true
redocly=0
node -e 'const fs = require("fs");
let r;
try { r = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch (e) {
  process.stderr.write(fs.readFileSync(process.argv[2], "utf8")); console.log("Redocly CLI gave no report"); process.exit(1); }
for (const p of r.problems) console.log(`${p.severity}\t${p.ruleId}\t${p.message}\t${(p.location[0] || {}).pointer || ""}`);
console.log(`${r.totals.errors} errors, ${r.totals.warnings} warnings`);
process.exit(r.totals.errors + r.totals.warnings > 0 ? 1 : 0);' "$work/redocly.json" "$work/redocly.err" || redocly=$?

echo "-- Spectral $(npx --no-install spectral --version 2>/dev/null), ruleset spectral:oas"
spectral=0
npx --no-install spectral lint --ruleset "$work/.spectral.yaml" --fail-severity=warn "$work/openapi.json" || spectral=$?

exit $((redocly || spectral))
