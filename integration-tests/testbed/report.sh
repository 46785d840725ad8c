#!/usr/bin/env bash
# placeholder until the report program exists
cat "$1"
