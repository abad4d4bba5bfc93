# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh and down.sh
# Shared by up.sh and down.sh (sourced, not run). Defines the on-disk layout under SLURM_DIR
# and the PID-file helpers; both scripts must agree on these paths, so they live only here.

SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm}
ETC=$SLURM_DIR/etc
STATE=$SLURM_DIR/state
SPOOL=$SLURM_DIR/spool
LOGS=$SLURM_DIR/log
RUN=$SLURM_DIR/run
MYSQL_DATA=$SLURM_DIR/mysql
# down.sh --purge removes SLURM_DIR only when this marker is there, so a mistyped SLURM_DIR is never wiped.
MARKER=$SLURM_DIR/.colocate-slurm
export SLURM_CONF=$ETC/slurm.conf

T0=${T0:-$(date +%s%N)}
elapsed() { local d=$(( $(date +%s%N) - T0 )); printf '%d.%02ds' $((d / 1000000000)) $((d / 10000000 % 100)); }
log() { echo "[${LOG_TAG:-slurm} $(elapsed)] $*"; }
die() { echo "[${LOG_TAG:-slurm} $(elapsed)] ERROR: $*" >&2; exit 1; }

# A zombie counts as gone: daemons are reparented to PID 1, and some container inits reap them only every
# second or two, which would otherwise add that delay to every stop.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# A PID file is trusted only while its process lives: a stale file from a crashed or killed daemon must not
# make up.sh skip the start.
alive() { local p; [ -f "$1" ] && p=$(cat "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && running "$p"; }

# wait_gone TENTHS PID...: true once none of the PIDs runs, false if some still run after TENTHS/10 seconds.
wait_gone() {
  local tenths=$1 i p left; shift
  for ((i = 0; i <= tenths; i++)); do
    left=0
    for p in "$@"; do running "$p" && left=1; done
    [ $left = 0 ] && return 0
    sleep 0.1
  done
  return 1
}

# stop_pidfiles LABEL PIDFILE...: TERM every live process, wait up to STOP_TIMEOUT seconds, then KILL.
# slurmctld saves its state on TERM, so KILL is only the last resort.
stop_pidfiles() {
  local label=$1 f p; shift
  local pids=()
  for f in "$@"; do
    if alive "$f"; then p=$(cat "$f"); kill -TERM "$p" 2>/dev/null && pids+=("$p"); fi
    rm -f "$f"
  done
  [ ${#pids[@]} -eq 0 ] && return 0
  if ! wait_gone $((${STOP_TIMEOUT:-15} * 10)) "${pids[@]}"; then
    for p in "${pids[@]}"; do
      if running "$p"; then log "$label pid $p ignored TERM, sending KILL"; kill -KILL "$p" 2>/dev/null || true; fi
    done
    wait_gone 50 "${pids[@]}" || log "WARNING: $label pid ${pids[*]} still there after KILL"
  fi
  log "stopped $label (pid ${pids[*]})"
}

slurmd_pidfiles() { compgen -G "$RUN/slurmd-*.pid" || true; }
