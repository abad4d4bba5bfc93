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

# Daemons of this cluster that no PID file names any more (seen: a slurmd that outlived a test run and kept its port,
# so that the next cluster's slurmd could not bind it): found by the SLURM_CONF that up.sh started them with, which
# names this SLURM_DIR and no other cluster's, never by process name alone.
stray_pids() {
  local p
  for p in /proc/[0-9]*; do
    case "$(cat "$p/comm" 2>/dev/null)" in slurmd | slurmctld | slurmrestd | slurmdbd) ;; *) continue ;; esac
    if { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF"; then echo "${p#/proc/}"; fi
  done
}

# cancel_jobs and stop_slurmd come from common.sh.
stop_all() {
  cancel_jobs
  stop_pidfiles slurmrestd "$RUN/slurmrestd.pid"
  stop_slurmd
  stop_pidfiles slurmctld "$RUN/slurmctld.pid"
  stop_pidfiles slurmdbd "$RUN/slurmdbd.pid"
  stop_pidfiles mariadbd "$RUN/mariadb.pid"
  local strays
  mapfile -t strays < <(stray_pids)
  if [ ${#strays[@]} -gt 0 ]; then
    log "stopping daemons of $SLURM_DIR that no PID file names: ${strays[*]}"
    kill_pids "stray daemons" "${strays[@]}"
  fi
  stop_munged
}

[ -d "$SLURM_DIR" ] || { log "nothing to stop: $SLURM_DIR does not exist"; exit 0; }

case "${1:-}" in
  "") stop_all ;;
  --purge)
    stop_all
    # shellcheck disable=SC2119  # no rm options here
    purge_dir ;;
  slurmrestd|slurmctld|slurmdbd) stop_pidfiles "$1" "$RUN/$1.pid" ;;
  mariadb) stop_pidfiles mariadbd "$RUN/mariadb.pid" ;;
  slurmd) shift; stop_slurmd "$@" ;;
  munged) stop_munged ;;
  *) die "usage: down.sh [--purge | slurmrestd | slurmctld | slurmd [NODE..] | slurmdbd | mariadb | munged]" ;;
esac
