# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by lib.sh, up.sh, make-root.sh, record.sh
# The Slurm release series that the chroot harness runs (sourced, not run). The scripts of this folder serve more
# than one series: 24.11 by default, from Debian 13's own packages, and 26.05 from Debian testing (forky) on top of
# trixie when COLOCATE_SLURM_SERIES=26.05, which the thin wrappers in ../slurm-26.05/ set before they exec the
# scripts here.
# Everything that differs between the series is set here; every default of 24.11 is what it always was.
#
#   SLURM_SERIES          24.11 | 26.05
#   SERIES_TAG            2411 | 2605: names SLURM_DIR, the marker, the namespace holder and the host name
#   SERIES_DIR            the folder of the series' own scripts (SLURM_CHROOT_CMD names its run-in-root.sh)
#   DEFAULT_ROOT, DEFAULT_CACHE, DEFAULT_CTLD_PORT, DEFAULT_SLURMD_PORT_BASE, DEFAULT_REST_PORT
#   REST_API              the openapi version that up.sh checks and record.sh records (the newest one served)
#   SUITE, PKGS           the Debian suite that debootstrap installs, and the packages it includes
#   RECORD_ALLOCATE       1 = record.sh also records the openapi path list and immediate job/allocate answers
#   EXTRA_SUITE, EXTRA_PKGS  a suite that apt then adds, and the packages installed from it (none for 24.11); SUITE
#                         stays the default release, so a dependency comes from EXTRA_SUITE only when SUITE's
#                         version does not satisfy it

SLURM_SERIES=${COLOCATE_SLURM_SERIES:-24.11}
SERIES_TAG=${SLURM_SERIES//./}
SERIES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../slurm-$SLURM_SERIES" 2>/dev/null && pwd) || SERIES_DIR=""
DEFAULT_ROOT=/var/tmp/colocate-slurm-$SLURM_SERIES-root
DEFAULT_CACHE=/var/tmp/colocate-slurm-$SLURM_SERIES-debcache
SUITE=trixie
EXTRA_SUITE=""
EXTRA_PKGS=""
RECORD_ALLOCATE=0
case $SLURM_SERIES in
  24.11)
    DEFAULT_CTLD_PORT=26817 DEFAULT_SLURMD_PORT_BASE=27001 DEFAULT_REST_PORT=26820
    REST_API=v0.0.42
    PKGS=slurmctld,slurmd,slurmrestd,slurm-client,munge,slurm-wlm-basic-plugins,slurm-wlm-jwt-plugin,procps ;;
  26.05)
    DEFAULT_CTLD_PORT=46817 DEFAULT_SLURMD_PORT_BASE=47001 DEFAULT_REST_PORT=46820
    REST_API=v0.0.45
    RECORD_ALLOCATE=1
    # debootstrap installs the base system and munge from trixie; Slurm 26.05 then comes from forky, because
    # trixie-backports carries no Slurm (seen 2026-12: its Packages list no slurm-wlm; forky and sid have
    # 26.05.5-1). job_submit/lua is still in slurm-wlm-basic-plugins.
    PKGS=munge,procps,ca-certificates
    EXTRA_SUITE=forky
    EXTRA_PKGS="slurmctld slurmd slurmrestd slurm-client slurm-wlm-basic-plugins slurm-wlm-jwt-plugin" ;;
  *)
    echo "COLOCATE_SLURM_SERIES must be 24.11 or 26.05, got '$SLURM_SERIES'" >&2; exit 1 ;;
esac
[ -n "$SERIES_DIR" ] || { echo "no folder slurm-$SLURM_SERIES beside $(dirname "${BASH_SOURCE[0]}")" >&2; exit 1; }
