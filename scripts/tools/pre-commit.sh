#!/usr/bin/env bash
# Installs pre-commit (https://pre-commit.com), the client the hook tests
# (cmd/agentlint/precommit_test.go) run, from Debian's package, and prints
# the path of the executable. Idempotent: an installed pre-commit is used as
# it is; the package list is refreshed only when the package is not found.
# Needs root (or sudo) for apt-get; prints a reason and exits 1 otherwise.
set -euo pipefail
if exe=$(command -v pre-commit 2>/dev/null); then
  echo "$exe"; exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; else
    echo "pre-commit.sh: pre-commit is not installed and apt-get needs root" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show pre-commit >/dev/null 2>&1; then
  $sudo apt-get update -qq >&2
fi
$sudo apt-get install -y -qq pre-commit >&2
command -v pre-commit
