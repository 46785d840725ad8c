#!/bin/sh
# Builds fsp's native launcher (fsp-cli/src/main/c/fsp-launcher.c) when a C compiler is here: SOURCE OUTPUT.
# Without one, bin/launch runs the Java launcher in its place (a JVM's start more for each warm command).
set -e
if command -v cc >/dev/null 2>&1; then
  cc -O2 -Wall -Wextra -Werror -o "$2" "$1"
else
  rm -f "$2"
  echo "fsp-launcher: no C compiler (cc); commands will start through the Java launcher"
fi
