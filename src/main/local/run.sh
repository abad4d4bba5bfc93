#!/bin/bash
# colocate's sandbox, as root on Debian 12 with Java 17, Maven and Go: real Slurm 22.05 on loopback (two 8-CPU
# slurmd, job_submit.lua; up.sh installs the packages when they are missing), a real Kubernetes control plane on
# loopback (src/test/kube/up.sh: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy and kwok,
# built from the Go module proxy on first use), colocate installed as helm/colocate installs it and run as its
# ServiceAccount, and the chart's own kube-scheduler with colocate as its extender. It replays the walkthrough and
# stays up until Ctrl-C, which stops colocate, the scheduler, the control plane and then the Slurm daemons, by PID.
#
#   bash src/main/local/run.sh                   build, start, walk through, stay up
#   bash src/main/local/run.sh --once            the same, but stop after the walkthrough
#
# Options: --http-port N [8080] (colocate), --no-build (use target/ as it is, with the classpath in SANDBOX_CLASSPATH
# or target/sandbox/classpath). Environment: SLURM_DIR [/tmp/colocate-slurm], up.sh's CTLD_PORT, REST_PORT,
# SLURMD_PORT_BASE; SANDBOX_SLURM [22.05]: 24.11 or 26.05 run the sandbox on that release's harness
# (src/test/slurm/slurm-<release>/, a debootstrap root built on first use; no job_submit.lua); KUBE_DIR
# [/tmp/colocate-kube-sandbox] and the kube harness's ports (ETCD_PORT [2379], ETCD_PEER_PORT [2380], APISERVER_PORT
# [6443], CONTROLLER_MANAGER_PORT [10257], SCHEDULER_PORT [10259], KWOK_PORT [10247], KUBE_PROXY_HEALTHZ_PORT [10256],
# KUBE_PROXY_METRICS_PORT [10249]); SANDBOX_ADDRESS [this host's primary IPv4 address]: where the colocate Service's
# endpoint points (the API server refuses loopback endpoints). Its kube-proxy programs this host's nftables, as the
# tests' does: run one of the two at a time (SandboxIT runs its sandbox in a network namespace of its own).
set -euo pipefail
cd "$(dirname "$0")/../../.."

CLASSPATH_FILE=target/sandbox/classpath
sandbox() {
  local cp=${SANDBOX_CLASSPATH:-}
  if [ -z "$cp" ]; then
    [ -f "$CLASSPATH_FILE" ] || { echo "run.sh: nothing built yet: run bash src/main/local/run.sh first" >&2; exit 1; }
    cp="target/test-classes:target/classes:$(cat "$CLASSPATH_FILE")"
  fi
  # helm-java's render asks a cluster for the chart's lookup()s; the sandbox answers them from a mock it names here
  KUBECONFIG=$PWD/target/sandbox/helm-kubeconfig.yaml \
    java -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$cp" dev.colocate.sandbox.Sandbox "$@"
}

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

export KUBE_DIR=${KUBE_DIR:-/tmp/colocate-kube-sandbox}
export ETCD_PORT=${ETCD_PORT:-2379} ETCD_PEER_PORT=${ETCD_PEER_PORT:-2380} APISERVER_PORT=${APISERVER_PORT:-6443}
export CONTROLLER_MANAGER_PORT=${CONTROLLER_MANAGER_PORT:-10257} SCHEDULER_PORT=${SCHEDULER_PORT:-10259}
export KWOK_PORT=${KWOK_PORT:-10247} KUBE_PROXY_HEALTHZ_PORT=${KUBE_PROXY_HEALTHZ_PORT:-10256}
export KUBE_PROXY_METRICS_PORT=${KUBE_PROXY_METRICS_PORT:-10249}
if [ -z "${SANDBOX_ADDRESS:-}" ]; then
  SANDBOX_ADDRESS=$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')
  [ -n "$SANDBOX_ADDRESS" ] || { echo "run.sh: this host has no IPv4 route; set SANDBOX_ADDRESS to an address of it that is not loopback" >&2; exit 1; }
fi
# kube-proxy's node address (its NodePorts open there) is colocate's too
export SANDBOX_ADDRESS KUBE_PROXY_NODE_IP=${KUBE_PROXY_NODE_IP:-$SANDBOX_ADDRESS}
echo "Starting Kubernetes in $KUBE_DIR (src/test/kube/up.sh; log target/sandbox/kube-up.log; the first run builds"
echo "  the binaries from the Go module proxy, about 12 minutes on 2 cores, cached in /var/cache/colocate-kube) ..."
bash src/test/kube/down.sh --purge >/dev/null 2>&1 || true
trap 'echo "Stopping Kubernetes and Slurm ..."; bash src/test/kube/down.sh --purge >/dev/null 2>&1 || true
      bash "$SLURM_SCRIPTS/down.sh" --purge >/dev/null 2>&1 || true' EXIT
if ! bash src/test/kube/up.sh >target/sandbox/kube-up.log 2>&1; then
  tail -20 target/sandbox/kube-up.log >&2
  echo "run.sh: Kubernetes did not come up; the whole log is target/sandbox/kube-up.log" >&2
  exit 1
fi
sandbox "$@"
