#!/bin/sh
# Installs Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool, the
# reference SARIF validator of the sarif-sdk) into .cache/tools/sarif-multitool
# of the repository and prints the path of its executable. Idempotent: when
# the pinned version is installed, it only prints the path.
#   scripts/tools/sarif-multitool.sh            # install if needed, print the path
#   "$(scripts/tools/sarif-multitool.sh)" validate log.sarif
set -eu
VERSION=5.7.0
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/.cache/tools/sarif-multitool"
bin="$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
case "$(uname -s)" in
Linux) ;;
Darwin) bin="$dir/node_modules/@microsoft/sarif-multitool-darwin/Sarif.Multitool" ;;
*) echo "sarif-multitool.sh: unsupported system $(uname -s)" >&2; exit 1 ;;
esac
if [ -x "$bin" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$VERSION" ]; then
	echo "$bin"
	exit 0
fi
command -v npm >/dev/null || { echo "sarif-multitool.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$dir"
# --ignore-scripts off: the package's postinstall makes the binary executable.
npm install --silent --no-audit --no-fund --prefix "$dir" "@microsoft/sarif-multitool@$VERSION" >&2
chmod u+x "$bin"
echo "$VERSION" >"$dir/.version"
echo "$bin"
