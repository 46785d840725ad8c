#!/usr/bin/env bash
# Builds the delay line: build.sh [OUTPUT] (default: integration-tests/target/delayline/delayline).
# Rebuilds only when the source is newer than OUTPUT. Prints the path of the binary.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../../target/delayline/delayline}
command -v gcc >/dev/null || { echo "delayline: gcc not found (bin/install-test-tools installs it)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
if [[ ! -x $out || $here/delayline.c -nt $out ]]; then
    gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$out.tmp.$$" "$here/delayline.c"
    mv "$out.tmp.$$" "$out"
fi
echo "$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
