#!/bin/bash
# exec-pod.sh - runs a command inside a pod that run-pod.sh started, like `kubectl exec`: in all of the pod's
# namespaces (network, mount, UTS, IPC, PID) and its root, as root, with the pod's environment (from its -e and -E).
#
# Usage: exec-pod.sh POD_NAME COMMAND [ARG...]
#   e.g. exec-pod.sh demo-slurmctld-0 sinfo
# stdin, stdout and stderr are passed through; the exit code is the command's.
# Environment: PODS_DIR [/tmp/colocate-pods] as in run-pod.sh. Needs root.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PODS_DIR=${PODS_DIR:-/tmp/colocate-pods}
# shellcheck source=SCRIPTDIR/pods-lib.sh
. "$HERE/pods-lib.sh"

[ $# -ge 2 ] || pod_die "usage: exec-pod.sh POD_NAME COMMAND [ARG...]"
[ "$(id -u)" = 0 ] || pod_die "run as root"
name=$1; shift
valid_name "$name" || pod_die "not a pod name: '$name'"
pid=$(pod_pid "$name") || pod_die "pod $name is not running"
mapfile -t env <"$PODS_DIR/pods/$name/env"
host=$(cat "$PODS_DIR/pods/$name/hostname")
exec nsenter --target "$pid" --net --mount --uts --ipc --pid --root --wdns=/ -- \
  /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root HOSTNAME="$host" \
  "${env[@]}" "$@"
