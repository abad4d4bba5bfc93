# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh, down.sh, run-in-root.sh
# Shared by up.sh, down.sh and run-in-root.sh (sourced, not run): the layout under SLURM_DIR and the namespace
# helpers. All of them must agree on these paths, so they live only here. The generic helpers (PID files, stopping,
# waiting) are in ../common.sh, shared with the 22.05 harness.
#
# SLURM_DIR is bind-mounted into the chroot at the same path, so every path below is valid on the host and inside.
# The chroot's /tmp is SLURM_DIR/tmp (job output lands there and goes with --purge, the root stays clean).

# shellcheck source=SCRIPTDIR/series.sh  # SLURM_SERIES (24.11 unless COLOCATE_SLURM_SERIES says otherwise) and its defaults
. "$(dirname "${BASH_SOURCE[0]}")/series.sh"

SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm-$SERIES_TAG}
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
MARKER=$SLURM_DIR/.colocate-slurm-$SERIES_TAG
# argv[0] of the process that holds the private mount+UTS namespace; down.sh checks it before signalling.
HOLDER_NAME=colocate-slurm-$SERIES_TAG-ns
# Host name inside the UTS namespace: SlurmctldHost and every node's NodeHostname.
SLURM_HOSTNAME=slurm$SERIES_TAG
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

LOG_TAG=${LOG_TAG:-slurm-$SLURM_SERIES}
# shellcheck source=SCRIPTDIR/../common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# The root file system the running cluster uses (recorded by up.sh), else the default.
recorded_root() {
  local r=""
  [ -f "$PARAMS" ] && r=$(sed -n 's/^ROOT=//p' "$PARAMS")
  echo "${r:-${ROOT:-$DEFAULT_ROOT}}"
}

# ours PID (for alive and stop_pidfiles): the process runs chrooted in ROOT. Guards every signal against stale PID
# files whose PID was reused by a host process (the 22.05 harness runs daemons of the same names on this host).
ours() { running "$1" && [ "$(readlink "/proc/$1/root" 2>/dev/null)" = "$ROOT" ]; }

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
# slurm_cmd CMD...: what common.sh runs Slurm commands and daemons with.
slurm_cmd() { CH "$@"; }
