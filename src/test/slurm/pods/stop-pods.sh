#!/bin/bash
# stop-pods.sh - stops pods that run-pod.sh started, the way the kubelet does: SIGTERM to the pod's PID 1, SIGKILL
# after STOP_GRACE seconds (when PID 1 ends, the kernel ends every other process of the pod's PID namespace).
#
# Usage: stop-pods.sh [POD_NAME...]   stop these pods and take back their network namespace, veth, address and
#                                     host names; their logs stay in PODS_DIR/pods/POD_NAME/log
#        stop-pods.sh [--purge]       stop every pod of PODS_DIR, then delete the bridge (network.sh down);
#                                     --purge also deletes PODS_DIR with the logs
# Only processes that run in a pod's own network namespace are signalled, never anything found by name.
#
# Environment (defaults in brackets): PODS_DIR [/tmp/colocate-pods], POD_BRIDGE [colocate-pods],
# POD_SUBNET [10.213.0] as in run-pod.sh; STOP_GRACE [30] seconds (Kubernetes' terminationGracePeriodSeconds).
# Exit code 0 when every named pod is stopped (a pod that was not running counts as stopped). Needs root.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PODS_DIR=${PODS_DIR:-/tmp/colocate-pods}
POD_BRIDGE=${POD_BRIDGE:-colocate-pods}
POD_SUBNET=${POD_SUBNET:-10.213.0}
STOP_GRACE=${STOP_GRACE:-30}
export POD_BRIDGE POD_SUBNET

# shellcheck source=SCRIPTDIR/pods-lib.sh
. "$HERE/pods-lib.sh"

[ "$(id -u)" = 0 ] || pod_die "run as root"
[[ $STOP_GRACE =~ ^[0-9]+$ ]] || pod_die "STOP_GRACE must be a number of seconds"

purge=0 all=0
if [ "${1:-}" = --purge ]; then purge=1; shift; [ $# -eq 0 ] || pod_die "--purge takes no pod names"; fi
pods=("$@")
if [ ${#pods[@]} -eq 0 ]; then
  all=1
  [ -d "$PODS_DIR/pods" ] && mapfile -t pods < <(pod_names)
fi
for p in "${pods[@]}"; do
  valid_name "$p" || pod_die "not a pod name: '$p'"
done

# All pods get SIGTERM first, then all are waited for together, as when a namespace is deleted.
declare -A pid_of=()
for p in "${pods[@]}"; do
  if pid=$(pod_pid "$p"); then
    pid_of[$p]=$pid
    echo "stop-pods.sh: SIGTERM to pod $p (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
  fi
done
deadline=$((SECONDS + STOP_GRACE))
for p in "${!pid_of[@]}"; do
  while pod_running "$p" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if pod_running "$p"; then
    echo "stop-pods.sh: pod $p still runs after ${STOP_GRACE}s: SIGKILL"
    kill -KILL "${pid_of[$p]}" 2>/dev/null || true
    while pod_running "$p"; do sleep 0.1; done
  fi
  # The shim writes the exit code once unshare has reaped PID 1.
  for _ in $(seq 50); do [ -e "$PODS_DIR/pods/$p/exit-code" ] && break; sleep 0.1; done
  echo "stop-pods.sh: pod $p stopped, exit code $(cat "$PODS_DIR/pods/$p/exit-code" 2>/dev/null || echo unknown)"
done

if [ -d "$PODS_DIR/pods" ]; then
  exec 9>"$PODS_DIR/lock"
  flock 9
  for p in "${pods[@]}"; do
    [ -d "$PODS_DIR/pods/$p" ] && release_pod "$p"
  done
  flock -u 9
  exec 9>&-
fi

if [ "$all" = 1 ]; then
  "$HERE/network.sh" down
  if [ "$purge" = 1 ] && [ -d "$PODS_DIR/pods" ]; then
    rm -rf "$PODS_DIR"
    echo "stop-pods.sh: removed $PODS_DIR"
  fi
fi
