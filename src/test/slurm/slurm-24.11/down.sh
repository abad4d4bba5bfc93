#!/bin/bash
# down.sh - stop what slurm-24.11/up.sh started, strictly by the PID files under SLURM_DIR (never by process name).
#   down.sh                 cancel all jobs (while slurmctld answers), then stop slurmrestd, every slurmd,
#                           slurmctld and munged; then end what is left in the cluster's private namespace (job
#                           steps that outlived their slurmd) and the namespace holder, whose mounts vanish with it
#   down.sh --purge         the same, then delete SLURM_DIR (state, spool, logs, keys, env.sh); ROOT is kept
#   down.sh DAEMON [NODE..] stop one daemon and leave jobs alone, to simulate an outage; `up.sh` starts it again.
#                           DAEMON: slurmrestd | slurmctld | slurmd (all, or only the NODEs given) | munged
# Every PID is signalled only if that process runs chrooted in the recorded ROOT, so a stale PID file can never hit
# a host process (such as the 22.05 harness's daemons of the same names). Succeeds when nothing runs.
# Environment: SLURM_DIR [/tmp/colocate-slurm-2411], STOP_TIMEOUT [15] s before KILL. (../slurm-26.05/down.sh runs
# this with COLOCATE_SLURM_SERIES=26.05: SLURM_DIR [/tmp/colocate-slurm-2605].)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=down-${COLOCATE_SLURM_SERIES:-24.11}
# shellcheck source=SCRIPTDIR/lib.sh
. "$HERE/lib.sh"
unset SLURM_JWT

[ "$(id -u)" = 0 ] || die "run as root"
[ -d "$SLURM_DIR" ] || { log "nothing to stop: $SLURM_DIR does not exist"; exit 0; }
ROOT=$(recorded_root)
ROOT=$(readlink -f "$ROOT" 2>/dev/null || echo "$ROOT")

# Whatever still runs in the holder's mount namespace (slurmstepd, job tasks, a wrapper's srun) is part of this
# cluster: that namespace was created by up.sh and is named by the holder's PID file.
stop_namespace() {
  holder_alive || { rm -f "$HOLDER_PID"; return 0; }
  local h mns d p left=()
  h=$(holder); mns=$(readlink "/proc/$h/ns/mnt")
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = "$h" ] || [ "$(readlink "$d/ns/mnt" 2>/dev/null)" != "$mns" ] || ! running "$p" || left+=("$p")
  done
  if [ ${#left[@]} -gt 0 ]; then
    for p in "${left[@]}"; do log "left in the namespace: pid $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"; done
    # job steps keep no state worth a long wait, and slurmstepd without its slurmd ignores TERM
    STOP_TIMEOUT=2 kill_pids "leftovers" "${left[@]}"
  fi
  kill_pids "namespace holder" "$h"
  rm -f "$HOLDER_PID"
}

# cancel_jobs (Slurm commands need the namespace), stop_slurmd and kill_pids come from ../common.sh.
stop_all() {
  if holder_alive; then cancel_jobs; fi
  stop_pidfiles slurmrestd "$RUN/slurmrestd.pid"
  stop_slurmd
  stop_pidfiles slurmctld "$RUN/slurmctld.pid"
  stop_pidfiles munged "$MUNGE_DIR/munged.pid"
  stop_namespace
}

case "${1:-}" in
  "") stop_all ;;
  --purge)
    stop_all
    # The mounts lived only in the (now ended) private namespace; --one-file-system guards against any other.
    purge_dir --one-file-system ;;
  slurmrestd|slurmctld) stop_pidfiles "$1" "$RUN/$1.pid" ;;
  slurmd) shift; stop_slurmd "$@" ;;
  munged) stop_pidfiles munged "$MUNGE_DIR/munged.pid" ;;
  *) die "usage: down.sh [--purge | slurmrestd | slurmctld | slurmd [NODE..] | munged]" ;;
esac
