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
# Environment: SLURM_DIR [/tmp/colocate-slurm-2411], STOP_TIMEOUT [15] s before KILL.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=down-24.11
. "$HERE/lib.sh"
unset SLURM_JWT

[ "$(id -u)" = 0 ] || die "run as root"
[ -d "$SLURM_DIR" ] || { log "nothing to stop: $SLURM_DIR does not exist"; exit 0; }
ROOT=$(recorded_root)
ROOT=$(readlink -f "$ROOT" 2>/dev/null || echo "$ROOT")

stop_slurmd() {
  local files=() n
  if [ $# -eq 0 ]; then mapfile -t files < <(slurmd_pidfiles)
  else for n in "$@"; do files+=("$RUN/slurmd-$n.pid"); done; fi
  [ ${#files[@]} -eq 0 ] || stop_pidfiles "slurmd ${*:-(all)}" "${files[@]}"
}

# Jobs go first so that their slurmstepd and user processes end with the cluster instead of outliving slurmd.
cancel_jobs() {
  alive "$RUN/slurmctld.pid" && holder_alive || return 0
  local jobs i
  mapfile -t jobs < <(CH squeue -h -o %i 2>/dev/null)
  [ ${#jobs[@]} -gt 0 ] || return 0
  CH scancel "${jobs[@]}" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    [ -z "$(CH squeue -h -t PD,R,S,CG,CF -o %i 2>/dev/null)" ] && break
    sleep 0.1
  done
  log "cancelled jobs: ${jobs[*]}"
}

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

stop_all() {
  cancel_jobs
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
    [ -f "$MARKER" ] || die "$SLURM_DIR has no $(basename "$MARKER") marker; not deleting it"
    # The mounts lived only in the (now ended) private namespace; --one-file-system guards against any other.
    rm -rf --one-file-system "$SLURM_DIR"
    log "purged $SLURM_DIR" ;;
  slurmrestd|slurmctld) stop_pidfiles "$1" "$RUN/$1.pid" ;;
  slurmd) shift; stop_slurmd "$@" ;;
  munged) stop_pidfiles munged "$MUNGE_DIR/munged.pid" ;;
  *) die "usage: down.sh [--purge | slurmrestd | slurmctld | slurmd [NODE..] | munged]" ;;
esac
