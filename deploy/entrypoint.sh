#!/bin/sh
# The container's entrypoint: the state volume starts empty, so it first gets
# the approval key that signed the image's plugins.lock (without it every
# plugin would read "needs approval"), then runs the host with the arguments
# given (default: serve --http 0.0.0.0:8080 --metrics 0.0.0.0:9090).
set -eu
state="${XDG_STATE_HOME:?XDG_STATE_HOME must be set}/toolhost"
mkdir -p "$state"
if [ ! -f "$state/approval.key" ]; then
	cp /opt/toolhost/approval/toolhost/approval.key "$state/approval.key"
	chmod 600 "$state/approval.key"
fi
exec /opt/toolhost/bin/host "$@"
