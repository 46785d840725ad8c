#!/bin/sh
# Builds fsp's native launcher (fsp-cli/src/main/c/fsp-launcher.c) when a C compiler is here: SOURCE OUTPUT.
# Without one (or if it fails), bin/launch runs the Java launcher in its place: a JVM's start more for each command.
rm -f "$2"
if ! command -v cc >/dev/null 2>&1; then
  echo "fsp-launcher: no C compiler (cc); commands will start through the Java launcher"
elif ! cc -O2 -s -Wall -Wextra -o "$2" "$1"; then
  rm -f "$2"
  echo "fsp-launcher: the C compiler failed; commands will start through the Java launcher"
fi
exit 0
