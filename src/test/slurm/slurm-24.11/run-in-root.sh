#!/bin/bash
# run-in-root.sh - run a command (scontrol, srun, sbatch, squeue, scancel, ...) against the Slurm 24.11 cluster of
# slurm-24.11/up.sh: inside its private namespace and chroot, with SLURM_CONF set, from the host. Needs root.
#   run-in-root.sh [--dir SLURM_DIR] [--user NAME] [--cwd DIR] COMMAND [ARG...]
#     --dir   the cluster's SLURM_DIR [$SLURM_DIR, else /tmp/colocate-slurm-2411]
#     --user  run as this user of the chroot (e.g. slurm, or one created there) [root]
#     --cwd   working directory inside the chroot [/tmp, which is SLURM_DIR/tmp on the host]
# up.sh exports SLURM_CHROOT_CMD="<this script> --dir <SLURM_DIR>", so: $SLURM_CHROOT_CMD scontrol show node.
# stdin, stdout, stderr and the exit code are the command's. The environment is not inherited, except SLURM_*
# variables the caller sets for the command (SLURM_TIME_FORMAT, say); SLURM_JWT is always dropped, because a token
# makes srun use auth/jwt, which slurmd refuses for step launch. ../slurm-26.05/run-in-root.sh runs this with
# COLOCATE_SLURM_SERIES=26.05 (default SLURM_DIR /tmp/colocate-slurm-2605).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN_USER=root
RUN_CWD=/tmp
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) SLURM_DIR=$2; shift 2 ;;
    --user) RUN_USER=$2; shift 2 ;;
    --cwd) RUN_CWD=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
LOG_TAG=run-in-root
# shellcheck source=SCRIPTDIR/lib.sh
. "$HERE/lib.sh"
[ $# -gt 0 ] || die "usage: run-in-root.sh [--dir SLURM_DIR] [--user NAME] [--cwd DIR] COMMAND [ARG...]"
[ "$(id -u)" = 0 ] || die "run as root (nsenter needs it)"
ROOT=$(recorded_root)
holder_alive || die "the Slurm $SLURM_SERIES cluster in $SLURM_DIR is not up (no live namespace holder); run up.sh"

# Variables that env.sh exports describe the cluster to the host; inside, Slurm could read some of them as options.
pass=()
while IFS='=' read -r -d '' name value; do
  case "$name" in
    SLURM_JWT|SLURM_CONF|SLURM_DIR|SLURM_ROOT|SLURM_REST_URL|SLURM_JWT_KEY|SLURM_NODES|SLURM_CLUSTER|SLURM_VERSION|SLURM_CHROOT_CMD) ;;
    SLURM_*) pass+=("$name=$value") ;;
  esac
done < <(env -0)

as_user=()
if [ "$RUN_USER" != root ]; then
  uid=$(chroot "$ROOT" id -u "$RUN_USER") || die "no user $RUN_USER in $ROOT"
  gid=$(chroot "$ROOT" id -g "$RUN_USER")
  as_user=(setpriv --reuid="$uid" --regid="$gid" --init-groups --)
fi
home=$(chroot "$ROOT" getent passwd "$RUN_USER" | cut -d: -f6)
exec nsenter -t "$(holder)" -m -u -- env -i PATH="$CHROOT_PATH" HOME="${home:-/}" USER="$RUN_USER" LOGNAME="$RUN_USER" \
  LANG=C.UTF-8 SLURM_CONF="$CONF" ${pass[@]+"${pass[@]}"} \
  chroot "$ROOT" ${as_user[@]+"${as_user[@]}"} env -C "$RUN_CWD" "$@"
