#!/bin/bash
# record.sh [OUT_DIR] - record real slurmrestd v0.0.42 responses from the running cluster of up.sh (NUM_NODES >= 2)
# into OUT_DIR [recorded/], for unit tests to parse. Writes one JSON body per file and index.tsv
# (file, HTTP code, request). Leaves no job behind and puts node1's GRES back. Needs root, curl, openssl, jq.
# ../slurm-26.05/record.sh runs it with COLOCATE_SLURM_SERIES=26.05: then the newest API that series serves
# (series.sh: REST_API) goes into ../slurm-26.05/recorded/, with the openapi path list and two immediate
# job/allocate answers (granted, refused) in addition (RECORD_ALLOCATE).
#
# It never sends DELETE job/{id} with a token of a user who does not own the job: on 24.11.5 that request
# (REQUEST_KILL_JOBS answered with "Operation not permitted") leaves slurmctld deadlocked; job-delete-nonowner.json
# was recorded once by hand, and slurmctld had to be killed afterwards.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/series.sh  # SERIES_TAG SERIES_DIR REST_API RECORD_ALLOCATE
. "$HERE/series.sh"
SLURM_DIR=${SLURM_DIR:-/tmp/colocate-slurm-$SERIES_TAG}
OUT=${1:-$SERIES_DIR/recorded}
[ -f "$SLURM_DIR/env.sh" ] || { echo "no $SLURM_DIR/env.sh: run up.sh NUM_NODES=2 first" >&2; exit 1; }
# shellcheck disable=SC1091  # written by up.sh
. "$SLURM_DIR/env.sh"
unset SLURM_JWT
API=$SLURM_REST_URL/slurm/$REST_API
read -r -a nodes <<<"$SLURM_NODES"
[ ${#nodes[@]} -ge 2 ] || { echo "needs NUM_NODES >= 2" >&2; exit 1; }
mkdir -p "$OUT"
read -r -a RUNIN <<<"$SLURM_CHROOT_CMD"   # a command prefix: split on blanks, as a test would

tmp=$(mktemp -d)
jobs_to_cancel=()
cleanup() {
  [ ${#jobs_to_cancel[@]} -eq 0 ] || "${RUNIN[@]}" scancel "${jobs_to_cancel[@]}" 2>/dev/null || true
  [ -z "${srun_pid:-}" ] || wait "$srun_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

head -c 32 /dev/urandom > "$tmp/wrong.key"
tok() { "$HERE/mkjwt.sh" "$@"; }
SLURM_TOKEN=$(tok "$SLURM_JWT_KEY" slurm 600)
EXPIRED=$(tok "$SLURM_JWT_KEY" slurm -60)
WRONG_KEY=$(tok "$tmp/wrong.key" slurm 600)
NOBODY=$(tok "$SLURM_JWT_KEY" nobody 600)

printf 'file\thttp\trequest\n' > "$OUT/index.tsv"
# rec FILE USER TOKEN METHOD PATH [BODY]: the response body goes to OUT/FILE, the HTTP code to index.tsv.
rec() {
  local file=$1 user=$2 token=$3 method=$4 path=$5 body=${6:-} code
  local args=(-s -X "$method" -o "$OUT/$file" -w '%{http_code}' -H "X-SLURM-USER-NAME: $user" -H "X-SLURM-USER-TOKEN: $token")
  [ -z "$body" ] || args+=(-H 'Content-Type: application/json' --data "$body")
  code=$(curl "${args[@]}" "$API$path")
  printf '%s\t%s\t%s %s as %s\n' "$file" "$code" "$method" "$path" "$user" >> "$OUT/index.tsv"
  echo "$code $method $path ($user) -> $file"
}
job_state() { "${RUNIN[@]}" squeue -h -j "$1" -o %T 2>/dev/null || true; }
wait_state() { local i; for ((i = 0; i < 100; i++)); do [ "$(job_state "$1")" = "$2" ] && return 0; sleep 0.1; done
  echo "job $1 did not reach $2" >&2; exit 1; }

node1=${nodes[0]}
initial_gres=$("${RUNIN[@]}" scontrol show node "$node1" | sed -n 's/^ *Gres=\([^ ]*\).*/\1/p')

rec ping.json slurm "$SLURM_TOKEN" GET /ping
rec ping-expired-token.json slurm "$EXPIRED" GET /ping
rec diag-expired-token.json slurm "$EXPIRED" GET /diag
rec diag-wrong-key.json slurm "$WRONG_KEY" GET /diag

# An interactive step holding GRES on node1, as a workload would.
"${RUNIN[@]}" srun -w "$node1" -J srun-probe --gres=k8scpu:2,k8smemory:1000 sleep 120 >/dev/null 2>&1 &
srun_pid=$!
for ((i = 0; i < 100; i++)); do srun_job=$("${RUNIN[@]}" squeue -h -n srun-probe -o %i); [ -n "$srun_job" ] && break; sleep 0.1; done
jobs_to_cancel+=("$srun_job")
wait_state "$srun_job" RUNNING

cat > "$OUT/job-submit-request.json" <<'EOF'
{
  "script": "#!/bin/bash\nsleep 120",
  "job": {
    "name": "rest-probe",
    "environment": ["PATH=/bin:/usr/bin"],
    "current_working_directory": "/tmp",
    "tres_per_node": "gres/k8scpu:1,gres/k8smemory:500"
  }
}
EOF
rec job-submit.json slurm "$SLURM_TOKEN" POST /job/submit "$(cat "$OUT/job-submit-request.json")"
batch_job=$(jq -r .job_id "$OUT/job-submit.json")
jobs_to_cancel+=("$batch_job")
wait_state "$batch_job" RUNNING
# Pending for Resources: more k8scpu than node1 has free.
pending_job=$("${RUNIN[@]}" --user slurm sbatch --parsable -w "$node1" -J pending-probe --gres=k8scpu:7 --wrap 'sleep 30')
jobs_to_cancel+=("$pending_job")
for ((i = 0; i < 100; i++)); do [ "$("${RUNIN[@]}" squeue -h -j "$pending_job" -o %r)" = Resources ] && break; sleep 0.1; done

rec node-update.json slurm "$SLURM_TOKEN" POST "/node/$node1" '{"gres":"k8scpu:5,k8smemory:12000"}'
rec node-update-nonadmin.json nobody "$NOBODY" POST "/node/$node1" '{"gres":"k8scpu:6,k8smemory:12000"}'
rec node-update-expired-token.json slurm "$EXPIRED" POST "/node/$node1" '{"gres":"k8scpu:6,k8smemory:12000"}'
if [ "$RECORD_ALLOCATE" = 1 ]; then
  # The path list of /openapi/v3, in the shape of src/test/resources/slurm/v0042/openapi-paths.json.
  code=$(curl -s -o "$tmp/openapi.json" -w '%{http_code}' -H "X-SLURM-USER-TOKEN: $SLURM_TOKEN" "$SLURM_REST_URL/openapi/v3")
  jq '{openapi, paths: (.paths | map_values(map_values({})))}' "$tmp/openapi.json" > "$OUT/openapi-paths.json"
  printf 'openapi-paths.json\t%s\tGET /openapi/v3 as slurm (only .openapi and the paths with their methods kept)\n' "$code" >> "$OUT/index.tsv"
  echo "$code GET /openapi/v3 -> openapi-paths.json"
  # Holds as colocate asks for them (src/main/java/dev/colocate/slurm/rest/v004x/Dialect004x.java): pinned to one
  # node, in the holds partition, top priority, no time limit, immediate. node2 has room for the first; the
  # second asks for all 8 CPUs of node2 while the first holds 2 of them.
  hold_body() {
    jq -n --arg node "$1" --argjson cpus "$2" --argjson mem "$3" '{job: {name: "colocate-hold",
      comment: "colocate hold", partition: "holds", required_nodes: [$node], minimum_nodes: 1, maximum_nodes: 1,
      tasks: 1, cpus_per_task: $cpus, memory_per_node: {set: true, infinite: false, number: $mem},
      time_limit: {set: true, infinite: true}, priority: {set: true, infinite: false, number: 4294967293},
      immediate: true, environment: ["PATH=/usr/bin:/bin"], current_working_directory: "/tmp",
      standard_output: "/dev/null", standard_error: "/dev/null"}}'
  }
  hold_body "${nodes[1]}" 2 1000 > "$OUT/job-allocate-request.json"
  rec job-allocate.json slurm "$SLURM_TOKEN" POST /job/allocate "$(cat "$OUT/job-allocate-request.json")"
  hold_job=$(jq -r '.job_id // empty' "$OUT/job-allocate.json")
  [ -z "$hold_job" ] || jobs_to_cancel+=("$hold_job")
  hold_body "${nodes[1]}" 8 1000 > "$OUT/job-allocate-refused-request.json"
  rec job-allocate-refused.json slurm "$SLURM_TOKEN" POST /job/allocate "$(cat "$OUT/job-allocate-refused-request.json")"
  refused_job=$(jq -r '.job_id // empty' "$OUT/job-allocate-refused.json")
  [ -z "$refused_job" ] || [ "$refused_job" = 0 ] || jobs_to_cancel+=("$refused_job")
fi
rec nodes.json slurm "$SLURM_TOKEN" GET /nodes
rec jobs.json slurm "$SLURM_TOKEN" GET /jobs
rec job-get-unknown.json slurm "$SLURM_TOKEN" GET /job/999999
rec job-delete.json slurm "$SLURM_TOKEN" DELETE "/job/$pending_job"
rec job-delete-unknown.json slurm "$SLURM_TOKEN" DELETE /job/999999

[ ! -f "$OUT/job-delete-nonowner.json" ] ||
  printf 'job-delete-nonowner.json\t500\tDELETE /job/{id} as nobody (job owned by slurm; recorded by hand, see above)\n' >> "$OUT/index.tsv"
"${RUNIN[@]}" scontrol update NodeName="$node1" Gres="$initial_gres"
echo "recorded into $OUT (node1 Gres back to $initial_gres)"
