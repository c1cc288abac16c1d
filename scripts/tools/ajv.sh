#!/bin/sh
# Installs ajv (JSON Schema validator, draft 2020-12 via ajv/dist/2020) and
# ajv-formats into .cache/tools/ajv of the repository, with npm; idempotent:
# when the pinned versions are already there nothing is downloaded. Prints
# the install directory (its node_modules holds ajv and ajv-formats).
# Used by the schema export tests (lint/schemaexport) and the benchmarks.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/.cache/tools/ajv"
want_ajv=8.17.1
want_formats=3.0.1
have() { [ -f "$dir/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json"; }
if ! have ajv "$want_ajv" || ! have ajv-formats "$want_formats"; then
	command -v npm >/dev/null 2>&1 || { echo "ajv.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || printf '{"name":"agentlint-tools-ajv","private":true}\n' >"$dir/package.json"
	npm install --prefix "$dir" --no-audit --no-fund --silent "ajv@$want_ajv" "ajv-formats@$want_formats" >&2
fi
echo "$dir"
