#!/bin/sh
# Installs ajv@8 and ajv-formats@3 from the npm registry into .cache/tools/ajv
# (git-ignored) for the `make bench` comparison (lint/bench/ajv.js), and
# prints the install directory. Idempotent: an existing install of the same
# versions is kept.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/.cache/tools/ajv"
if [ ! -f "$dir/node_modules/ajv/package.json" ] || [ ! -f "$dir/node_modules/ajv-formats/package.json" ]; then
	command -v npm >/dev/null 2>&1 || { echo "ajv.sh: npm is required (apt-get install npm)" >&2; exit 1; }
	mkdir -p "$dir"
	npm install --silent --no-audit --no-fund --prefix "$dir" ajv@8 ajv-formats@3 >&2
fi
echo "$dir"
