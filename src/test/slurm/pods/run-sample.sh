#!/bin/bash
# run-sample.sh - runs the Slurm pods that the operator renders for one cluster on this host, with run-pod.sh and the
# image's entrypoint (src/main/slurm/image/entrypoint.sh), and checks them: every worker idle, a job across all
# workers, slurmrestd answering a JWT.
#
# Usage: run-sample.sh CONFIG_DIR
#   CONFIG_DIR holds the ConfigMap's files (slurm.conf, gres.conf, cgroup.conf, job_submit.lua), mounted read-only
#   at /etc/slurm in every pod.
# It lays out the other volumes as the kubelet would, under SAMPLE_DIR:
#   - munge/munge.key: 1024 random bytes, root 0400, as the munge Secret;
#   - jwt/jwt_hs256.key: 64 random bytes, root 0400, as the JWT Secret;
#   - state/: slurmctld's claim, emptied first.
#   The keys are made only if missing.
# It starts these pods, as the StatefulSets and the Deployment name them:
#   - CLUSTER-slurmctld-0, subdomain CLUSTER-slurmctld;
#   - CLUSTER-worker-GROUP-0 .. REPLICAS-1, subdomain CLUSTER-workers;
#   - CLUSTER-slurmrestd-abc12, also named CLUSTER-slurmrestd (its Service).
# The pods keep running: stop them with stop-pods.sh (PODS_DIR as here).
#
# Environment (defaults in brackets):
#   CLUSTER [demo]  GROUP [cpu]  REPLICAS [2]
#   SAMPLE_DIR [/tmp/colocate-sample]   keys, claim, env files; PODS_DIR [SAMPLE_DIR/pods] as in run-pod.sh
#   POD_IMAGE [/]                       as in run-pod.sh (/ = this host's Slurm 22.05; a Debian 13 root for 24.11)
#   REST_API [from the Slurm version: v0.0.38 for 22.05, v0.0.42 for 24.11]
#   UP_TIMEOUT [60]                     seconds for the workers to become idle
# Exit code 0 when every check passed. Needs root.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
CLUSTER=${CLUSTER:-demo}
GROUP=${GROUP:-cpu}
REPLICAS=${REPLICAS:-2}
SAMPLE_DIR=${SAMPLE_DIR:-/tmp/colocate-sample}
export PODS_DIR=${PODS_DIR:-$SAMPLE_DIR/pods}
UP_TIMEOUT=${UP_TIMEOUT:-60}
ENTRYPOINT=/usr/local/bin/colocate-slurm-entrypoint
MKJWT=$HERE/../slurm-24.11/mkjwt.sh

die() { echo "run-sample.sh: $*" >&2; exit 1; }
say() { echo "run-sample.sh: $*"; }

[ $# -eq 1 ] || die "usage: run-sample.sh CONFIG_DIR"
CONFIG=$(readlink -f "$1")
[ -f "$CONFIG/slurm.conf" ] || die "$CONFIG/slurm.conf does not exist"
[ "$(id -u)" = 0 ] || die "run as root"
[[ $REPLICAS =~ ^[1-9][0-9]?$ ]] || die "REPLICAS must be 1-99"

# ------------------------------------------------------------------------------------------ the kubelet's volumes
mkdir -p "$SAMPLE_DIR/munge" "$SAMPLE_DIR/jwt" "$SAMPLE_DIR/state"
[ -s "$SAMPLE_DIR/munge/munge.key" ] || head -c 1024 /dev/urandom >"$SAMPLE_DIR/munge/munge.key"
[ -s "$SAMPLE_DIR/jwt/jwt_hs256.key" ] || head -c 64 /dev/urandom >"$SAMPLE_DIR/jwt/jwt_hs256.key"
chown root:root "$SAMPLE_DIR/munge/munge.key" "$SAMPLE_DIR/jwt/jwt_hs256.key"
chmod 0400 "$SAMPLE_DIR/munge/munge.key" "$SAMPLE_DIR/jwt/jwt_hs256.key"
find "$SAMPLE_DIR/state" -mindepth 1 -delete
chown root:root "$SAMPLE_DIR/state"
chmod 0755 "$SAMPLE_DIR/state"
# The pod templates' env (SlurmPods.env); POD_NAME is added per pod below, as the downward API would.
printf '%s\n' SLURM_CONF=/etc/slurm/slurm.conf MUNGE_KEY_FILE=/etc/munge-key/munge.key >"$SAMPLE_DIR/env.slurmd"
{ cat "$SAMPLE_DIR/env.slurmd"; echo SLURM_JWT_KEY_FILE=/etc/slurm-jwt/jwt_hs256.key; } >"$SAMPLE_DIR/env.jwt"

# ------------------------------------------------------------------------------------------ the pods
CTLD=$CLUSTER-slurmctld-0
REST=$CLUSTER-slurmrestd-abc12
WORKERS=()
for ((i = 0; i < REPLICAS; i++)); do WORKERS+=("$CLUSTER-worker-$GROUP-$i"); done
for p in "$CTLD" "$REST" "${WORKERS[@]}"; do
  if [ -s "$PODS_DIR/pods/$p/pid" ] && [ -e "/proc/$(cat "$PODS_DIR/pods/$p/pid")" ]; then
    die "pod $p runs already: stop-pods.sh first (PODS_DIR=$PODS_DIR)"
  fi
done
common=(-f "$REPO/src/main/slurm/image/entrypoint.sh:$ENTRYPOINT" -v "$CONFIG:/etc/slurm:ro"
  -v "$SAMPLE_DIR/munge:/etc/munge-key:ro")
t0=$(date +%s.%N)
"$HERE/run-pod.sh" "${common[@]}" -s "$CLUSTER-slurmctld" -e "$SAMPLE_DIR/env.jwt" -E "POD_NAME=$CTLD" \
  -v "$SAMPLE_DIR/jwt:/etc/slurm-jwt:ro" -v "$SAMPLE_DIR/state:/var/spool/slurmctld" "$CTLD" -- "$ENTRYPOINT" slurmctld
for w in "${WORKERS[@]}"; do
  "$HERE/run-pod.sh" "${common[@]}" -s "$CLUSTER-workers" -e "$SAMPLE_DIR/env.slurmd" -E "POD_NAME=$w" \
    "$w" -- "$ENTRYPOINT" slurmd
done
"$HERE/run-pod.sh" "${common[@]}" -a "$CLUSTER-slurmrestd" -e "$SAMPLE_DIR/env.jwt" -E "POD_NAME=$REST" \
  -v "$SAMPLE_DIR/jwt:/etc/slurm-jwt:ro" "$REST" -- "$ENTRYPOINT" slurmrestd

# ------------------------------------------------------------------------------------------ checks
in_ctld() { "$HERE/exec-pod.sh" "$CTLD" "$@"; }
nodes=$(IFS=,; echo "${WORKERS[*]}")
deadline=$((SECONDS + UP_TIMEOUT))
until [ "$(in_ctld sinfo -h -N -p "$GROUP" -n "$nodes" -t idle -o %N 2>/dev/null | sort -u | wc -l)" = "$REPLICAS" ]; do
  for p in "$CTLD" "${WORKERS[@]}"; do
    [ -e "$PODS_DIR/pods/$p/exit-code" ] || continue
    tail -n 5 "$PODS_DIR/pods/$p/log" >&2
    die "pod $p ended (log: $PODS_DIR/pods/$p/log)"
  done
  [ $SECONDS -lt $deadline ] || { in_ctld sinfo -N || true; die "the workers are not all idle after ${UP_TIMEOUT}s (logs: $PODS_DIR/pods/*/log)"; }
  sleep 0.5
done
say "all $REPLICAS workers idle $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after the first pod started"
in_ctld sinfo
say "srun -N$REPLICAS hostname:"
in_ctld srun -N"$REPLICAS" hostname

if [ -z "${REST_API:-}" ]; then
  case $(in_ctld sinfo -V) in
    *" 22.05."*) REST_API=v0.0.38 ;;
    *" 24.11."*) REST_API=v0.0.42 ;;
    *) die "set REST_API: no default for $(in_ctld sinfo -V)" ;;
  esac
fi
rest_ip=$(cat "$PODS_DIR/pods/$REST/ip")
token=$("$MKJWT" "$SAMPLE_DIR/jwt/jwt_hs256.key" slurm 300)
for i in $(seq 40); do
  code=$(curl -s -o "$SAMPLE_DIR/diag.json" -w '%{http_code}' --max-time 5 -H "X-SLURM-USER-NAME: slurm" \
    -H "X-SLURM-USER-TOKEN: $token" "http://$rest_ip:6820/slurm/$REST_API/diag" || true)
  [ "$code" = 000 ] || break
  [ "$i" = 40 ] || sleep 0.5
done
say "GET http://$rest_ip:6820/slurm/$REST_API/diag with a slurm token: HTTP $code"
head -c 300 "$SAMPLE_DIR/diag.json" 2>/dev/null; echo
[ "$code" = 200 ] || die "slurmrestd did not answer 200 (log: $PODS_DIR/pods/$REST/log)"
say "all checks passed; stop the pods with: PODS_DIR=$PODS_DIR $HERE/stop-pods.sh [--purge]"
