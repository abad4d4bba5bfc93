#!/bin/bash
# colocate's sandbox, as root on Debian 12 with Java 17 and Maven: real Slurm 22.05 on loopback (two 8-CPU slurmd,
# job_submit.lua; up.sh installs the packages when they are missing), fabric8's mock API server standing in for
# Kubernetes, colocate itself, and a stand-in for kube-scheduler. It replays the walkthrough and stays up until Ctrl-C,
# which stops colocate, the API server and then the Slurm daemons, by PID.
#
#   bash src/main/local/run.sh                   build, start, walk through, stay up
#   bash src/main/local/run.sh --once            the same, but stop after the walkthrough
#   bash src/main/local/run.sh get genericnode   the GenericNode table of the running sandbox
#
# Options after the command: --api-port N [8001], --http-port N [8080] (colocate), --no-build (use target/ as it is,
# with the classpath in SANDBOX_CLASSPATH or target/sandbox/classpath). Environment: SLURM_DIR [/tmp/colocate-slurm],
# up.sh's CTLD_PORT, REST_PORT, SLURMD_PORT_BASE, and SANDBOX_SLURM [22.05]: 24.11 or 26.05 run the sandbox on that
# release's harness (src/test/slurm/slurm-<release>/, a debootstrap root built on first use; no job_submit.lua).
set -euo pipefail
cd "$(dirname "$0")/../../.."

CLASSPATH_FILE=target/sandbox/classpath
sandbox() {
  local cp=${SANDBOX_CLASSPATH:-}
  if [ -z "$cp" ]; then
    [ -f "$CLASSPATH_FILE" ] || { echo "run.sh: nothing built yet: run bash src/main/local/run.sh first" >&2; exit 1; }
    cp="target/test-classes:target/classes:$(cat "$CLASSPATH_FILE")"
  fi
  java -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$cp" dev.colocate.sandbox.Sandbox "$@"
}

if [ "${1:-}" = get ]; then
  sandbox "$@"
  exit
fi
[ "$(id -u)" = 0 ] || { echo "run.sh starts Slurm daemons and must run as root" >&2; exit 1; }

mkdir -p target/sandbox
if [[ " $* " != *" --no-build "* ]]; then
  echo "Building colocate (mvn package) ..."
  mvn -B -q package -DskipTests
  mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$CLASSPATH_FILE"
fi

export SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm}
case "${SANDBOX_SLURM:-22.05}" in
  22.05) SLURM_SCRIPTS=src/test/slurm ;;
  24.11|26.05) SLURM_SCRIPTS=src/test/slurm/slurm-$SANDBOX_SLURM ;;
  *) echo "run.sh: SANDBOX_SLURM must be 22.05, 24.11 or 26.05, not $SANDBOX_SLURM" >&2; exit 2 ;;
esac
echo "Starting Slurm in $SLURM_DIR ($SLURM_SCRIPTS/up.sh; log target/sandbox/slurm-up.log) ..."
# The sandbox owns SLURM_DIR and keeps no Slurm state from one run to the next: a stale state file would hand
# slurmctld GRES counts an earlier run lowered.
bash "$SLURM_SCRIPTS/down.sh" --purge >/dev/null 2>&1 || true
trap 'echo "Stopping Slurm ..."; bash "$SLURM_SCRIPTS/down.sh" --purge >/dev/null 2>&1 || true' EXIT
if ! NUM_NODES=2 JOB_SUBMIT_LUA=1 bash "$SLURM_SCRIPTS/up.sh" >target/sandbox/slurm-up.log 2>&1; then
  tail -20 target/sandbox/slurm-up.log >&2
  echo "run.sh: Slurm did not come up; the whole log is target/sandbox/slurm-up.log" >&2
  exit 1
fi
# shellcheck source=/dev/null
. "$SLURM_DIR/env.sh"
export SLURM_DIR SLURM_CONF SLURM_REST_URL SLURM_JWT_KEY
# 24.11 and 26.05: their client commands run in the release's root (env.sh sets it)
export SLURM_CHROOT_CMD=${SLURM_CHROOT_CMD:-}
sandbox "$@"
