#!/bin/sh
# A main program that ignores SIGTERM: only the end of sexton's grace period stops it.
trap '' TERM
echo "ignore-term: ready"
while :; do sleep 1; done
