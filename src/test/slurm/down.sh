#!/bin/bash
# down.sh - stop what up.sh started, strictly by the PID files under SLURM_DIR/run (never by process name).
#   down.sh                 cancel all jobs (while slurmctld answers), then stop slurmrestd, every slurmd,
#                           slurmctld, slurmdbd, mariadbd, and munged if up.sh started it
#   down.sh --purge         the same, then delete SLURM_DIR (state, spool, logs, database, keys, env.sh)
#   down.sh DAEMON [NODE..] stop one daemon and leave jobs alone, to simulate an outage; `up.sh` starts it again.
#                           DAEMON: slurmrestd | slurmctld | slurmd (all, or only the NODEs given) | slurmdbd | mariadb | munged
# Jobs are cancelled only while slurmctld answers: with slurmctld already down, running job steps (slurmstepd)
# outlive their slurmd. Succeeds when nothing runs. Environment: SLURM_DIR [/tmp/colocate-slurm], STOP_TIMEOUT [15] s before KILL.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=down
. "$HERE/lib.sh"
unset SLURM_JWT

[ "$(id -u)" = 0 ] || die "run as root"

stop_munged() {
  [ -f "$RUN/munged.started" ] || return 0
  stop_pidfiles munged "$(cat "$RUN/munged.started")"
  rm -f "$RUN/munged.started"
}

stop_slurmd() {
  local files=() n
  if [ $# -eq 0 ]; then mapfile -t files < <(slurmd_pidfiles)
  else for n in "$@"; do files+=("$RUN/slurmd-$n.pid"); done; fi
  [ ${#files[@]} -eq 0 ] || stop_pidfiles "slurmd ${*:-(all)}" "${files[@]}"
}

# Jobs go first so that their slurmstepd and user processes end with the cluster instead of outliving slurmd.
cancel_jobs() {
  alive "$RUN/slurmctld.pid" || return 0
  local jobs i
  mapfile -t jobs < <(squeue -h -o %i 2>/dev/null)
  [ ${#jobs[@]} -gt 0 ] || return 0
  scancel "${jobs[@]}" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    [ -z "$(squeue -h -t PD,R,S,CG,CF -o %i 2>/dev/null)" ] && break
    sleep 0.1
  done
  log "cancelled jobs: ${jobs[*]}"
}

stop_all() {
  cancel_jobs
  stop_pidfiles slurmrestd "$RUN/slurmrestd.pid"
  stop_slurmd
  stop_pidfiles slurmctld "$RUN/slurmctld.pid"
  stop_pidfiles slurmdbd "$RUN/slurmdbd.pid"
  stop_pidfiles mariadbd "$RUN/mariadb.pid"
  stop_munged
}

[ -d "$SLURM_DIR" ] || { log "nothing to stop: $SLURM_DIR does not exist"; exit 0; }

case "${1:-}" in
  "") stop_all ;;
  --purge)
    stop_all
    [ -f "$MARKER" ] || die "$SLURM_DIR has no $(basename "$MARKER") marker; not deleting it"
    rm -rf "$SLURM_DIR"
    log "purged $SLURM_DIR" ;;
  slurmrestd|slurmctld|slurmdbd) stop_pidfiles "$1" "$RUN/$1.pid" ;;
  mariadb) stop_pidfiles mariadbd "$RUN/mariadb.pid" ;;
  slurmd) shift; stop_slurmd "$@" ;;
  munged) stop_munged ;;
  *) die "usage: down.sh [--purge | slurmrestd | slurmctld | slurmd [NODE..] | slurmdbd | mariadb | munged]" ;;
esac
