#!/bin/bash
# Builds colocate and runs it on this machine against real Slurm on loopback, with the operator role off (there is
# no Kubernetes cluster here to reconcile into). As root: up.sh installs the Slurm packages when they are missing.
# Ctrl-C stops colocate and then the Slurm daemons that up.sh started.
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ "$(id -u)" = 0 ] || { echo "run.sh starts Slurm daemons and must run as root" >&2; exit 1; }

export SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm}
bash src/test/slurm/up.sh
trap 'bash src/test/slurm/down.sh' EXIT
# shellcheck source=/dev/null
. "$SLURM_DIR/env.sh"

mvn -B -q package -DskipTests
echo "colocate: http://localhost:8080/q/health  http://localhost:8080/q/metrics   (Ctrl-C stops it and Slurm)"
java -Dcolocate.operator.enabled=false -Dcolocate.copilot.enabled=false \
     -Dcolocate.slurm.rest-url="$SLURM_REST_URL" \
     -Dcolocate.slurm.jwt.key-file="$SLURM_JWT_KEY" \
     -jar target/quarkus-app/quarkus-run.jar
