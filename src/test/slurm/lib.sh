# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh and down.sh
# Shared by up.sh and down.sh (sourced, not run). Defines the on-disk layout under SLURM_DIR; both scripts must
# agree on these paths, so they live only here. The generic helpers (PID files, stopping, waiting) are in common.sh.

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

# ours PID (for alive and stop_pidfiles): the daemons run on the host, so a live process is all a PID file needs.
ours() { running "$1"; }
# slurm_cmd CMD...: Slurm commands and daemons run on the host, with SLURM_CONF from above.
slurm_cmd() { "$@"; }

LOG_TAG=${LOG_TAG:-slurm}
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
