#!/bin/bash
# down.sh - stop what up.sh started, strictly by the PID files under KUBE_DIR/run (never by process name).
#   down.sh            stop kwok, kube-scheduler, kube-proxy, kube-controller-manager, kube-apiserver and etcd, in
#                      that order, and delete kube-proxy's nftables tables (ip kube-proxy, ip6 kube-proxy), which
#                      kube-proxy leaves behind when it stops, unless another kube-proxy still runs on this host
#   down.sh --purge    the same, then delete KUBE_DIR (etcd's data, certificates, kubeconfigs, logs, env.sh)
#   down.sh DAEMON..   stop only these (etcd | kube-apiserver | kube-controller-manager | kube-proxy | kube-scheduler |
#                      kwok), to simulate an outage; `up.sh` starts them again with the same data and certificates.
#                      kube-proxy's tables go with it (so its Services stop routing).
# Succeeds when nothing runs. Environment: KUBE_DIR [/tmp/colocate-kube], STOP_TIMEOUT [15] s before KILL.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=kube-down
. "$HERE/lib.sh"

stop() { local d; for d in "$@"; do stop_pidfiles "$d" "$RUN/$d.pid"; done; }

if [ $# -gt 0 ] && [ "$1" != --purge ]; then
  for d in "$@"; do
    [[ " ${DAEMONS[*]} " == *" $d "* ]] || die "unknown daemon '$d' (one of: ${DAEMONS[*]})"
  done
  stop "$@"
  if [[ " $* " == *" kube-proxy "* ]]; then remove_kube_proxy_tables; fi
  exit 0
fi
[ -d "$KUBE_DIR" ] || { log "nothing to stop: $KUBE_DIR does not exist"; exit 0; }
for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do stop "${DAEMONS[i]}"; done
remove_kube_proxy_tables
if [ "${1:-}" = --purge ]; then purge_dir; fi
