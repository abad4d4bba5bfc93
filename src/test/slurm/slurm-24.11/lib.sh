# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh, down.sh, run-in-root.sh
# Shared by up.sh, down.sh and run-in-root.sh (sourced, not run): the layout under SLURM_DIR, the namespace helpers
# and the PID-file helpers. All of them must agree on these paths, so they live only here.
#
# SLURM_DIR is bind-mounted into the chroot at the same path, so every path below is valid on the host and inside.
# The chroot's /tmp is SLURM_DIR/tmp (job output lands there and goes with --purge, the root stays clean).

SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm-2411}
ETC=$SLURM_DIR/etc
STATE=$SLURM_DIR/state
SPOOL=$SLURM_DIR/spool
LOGS=$SLURM_DIR/log
RUN=$SLURM_DIR/run
MUNGE_DIR=$SLURM_DIR/munge
JOB_TMP=$SLURM_DIR/tmp
MUNGE_SOCKET=$MUNGE_DIR/munge.socket.2
CONF=$ETC/slurm.conf
JWT_KEY=$ETC/jwt_hs256.key
PARAMS=$ETC/up.params
HOLDER_PID=$RUN/holder.pid
# down.sh --purge removes SLURM_DIR only when this marker is there, so a mistyped SLURM_DIR is never wiped.
MARKER=$SLURM_DIR/.colocate-slurm-2411
# argv[0] of the process that holds the private mount+UTS namespace; down.sh checks it before signalling.
HOLDER_NAME=colocate-slurm-2411-ns
# Host name inside the UTS namespace: SlurmctldHost and every node's NodeHostname.
SLURM_HOSTNAME=slurm2411
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

T0=${T0:-$(date +%s%N)}
elapsed() { local d=$(( $(date +%s%N) - T0 )); printf '%d.%02ds' $((d / 1000000000)) $((d / 10000000 % 100)); }
log() { echo "[${LOG_TAG:-slurm-24.11} $(elapsed)] $*"; }
die() { echo "[${LOG_TAG:-slurm-24.11} $(elapsed)] ERROR: $*" >&2; exit 1; }

# The root file system the running cluster uses (recorded by up.sh), else the default.
recorded_root() {
  local r=""
  [ -f "$PARAMS" ] && r=$(sed -n 's/^ROOT=//p' "$PARAMS")
  echo "${r:-${ROOT:-/var/tmp/colocate-slurm-24.11-root}}"
}

# A zombie counts as gone: daemons are reparented to PID 1, and some container inits reap them only every
# second or two, which would otherwise add that delay to every stop.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# ours PID: the process runs chrooted in ROOT. Guards every signal against stale PID files whose PID was reused
# by a host process (the 22.05 harness runs daemons of the same names on this host).
ours() { running "$1" && [ "$(readlink "/proc/$1/root" 2>/dev/null)" = "$ROOT" ]; }

# A PID file is trusted only while its process lives in our root: a stale file from a crashed or killed daemon
# must not make up.sh skip the start.
alive() { local p; [ -f "$1" ] && p=$(cat "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && ours "$p"; }

# The namespace holder is alive when its PID file names a process with our argv[0] in another mount namespace.
holder_alive() {
  local h
  [ -f "$HOLDER_PID" ] && h=$(cat "$HOLDER_PID" 2>/dev/null) && [[ $h =~ ^[0-9]+$ ]] && running "$h" || return 1
  [ "$(tr '\0' '\n' < "/proc/$h/cmdline" 2>/dev/null | head -n 1)" = "$HOLDER_NAME" ] || return 1
  [ "$(readlink "/proc/$h/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]
}
holder() { cat "$HOLDER_PID"; }
NS() { nsenter -t "$(holder)" -m -u -- "$@"; }
# CH CMD...: run CMD chrooted, in the namespace, with a clean environment pointing at this cluster.
CH() { NS env -i PATH="$CHROOT_PATH" HOME=/root LANG=C.UTF-8 SLURM_CONF="$CONF" chroot "$ROOT" "$@"; }

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

# kill_pids LABEL PID...: TERM, wait up to STOP_TIMEOUT seconds, then KILL. slurmctld saves its state on TERM.
kill_pids() {
  local label=$1 p; shift
  [ $# -eq 0 ] && return 0
  kill -TERM "$@" 2>/dev/null || true
  if ! wait_gone $((${STOP_TIMEOUT:-15} * 10)) "$@"; then
    for p in "$@"; do
      if running "$p"; then log "$label pid $p ignored TERM, sending KILL"; kill -KILL "$p" 2>/dev/null || true; fi
    done
    wait_gone 50 "$@" || log "WARNING: $label pid $* still there after KILL"
  fi
  log "stopped $label (pid $*)"
}

# stop_pidfiles LABEL PIDFILE...: stop the live processes the PID files name (only if they run in our root).
stop_pidfiles() {
  local label=$1 f p; shift
  local pids=()
  for f in "$@"; do
    if alive "$f"; then p=$(cat "$f"); pids+=("$p"); fi
    rm -f "$f"
  done
  kill_pids "$label" "${pids[@]}"
}

slurmd_pidfiles() { compgen -G "$RUN/slurmd-*.pid" || true; }
