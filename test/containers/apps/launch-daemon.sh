#!/bin/sh
# Starts the daemonized writer of daemon.mjs (output to $1), then becomes the rest of the
# command line: `sh launch-daemon.sh OUT node app.mjs`.
node /apps/daemon.mjs launch "$1"
shift
exec "$@"
