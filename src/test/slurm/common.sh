# shellcheck shell=bash disable=SC2034,SC2153  # sourced: lib.sh assigns the layout, up.sh reads what is set here
# Generic helpers shared by both real-Slurm harnesses (sourced, not run; the real Kubernetes harness, src/test/kube,
# uses the process and waiting helpers too): Slurm 22.05 on the host (lib.sh here) and
# Slurm 24.11 in a chroot (slurm-24.11/lib.sh, and slurm-24.11/make-root.sh for log/die). Only code whose logic is
# the same for both lives here; each lib.sh keeps its layout variables and defines the hooks used below:
#   ours PID          the process runs and belongs to this harness (24.11: chrooted in ROOT)
#   slurm_cmd CMD...  run a Slurm command or daemon of this cluster (22.05: as is; 24.11: in the chroot)
# and each up.sh defines render_config DIR and any_daemon_alive for stage_config. Messages go out as
# "[$LOG_TAG <seconds since T0>] ..."; LOG_TAG must be set before this file is sourced.

T0=${T0:-$(date +%s%N)}
elapsed() { local d=$(( $(date +%s%N) - T0 )); printf '%d.%02ds' $((d / 1000000000)) $((d / 10000000 % 100)); }
log() { echo "[$LOG_TAG $(elapsed)] $*"; }
# err MESSAGE: die's message without the exit, for failures that exit with another code; err_more adds a line.
err() { echo "[$LOG_TAG $(elapsed)] ERROR: $*" >&2; }
err_more() { echo "[$LOG_TAG $(elapsed)]        $*" >&2; }
die() { err "$@"; exit 1; }

# ------------------------------------------------------------------------------------------------ processes
# A zombie counts as gone: daemons are reparented to PID 1, and some container inits reap them only every
# second or two, which would otherwise add that delay to every stop.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# A PID file is trusted only while its process lives (and is ours): a stale file from a crashed or killed daemon
# must not make up.sh skip the start.
# Only its first line counts: a daemon that writes its PID over a longer stale file leaves a tail behind.
alive() { local p; [ -f "$1" ] && p=$(head -n 1 "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && ours "$p"; }

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

# kill_pids LABEL PID...: TERM each, wait up to STOP_TIMEOUT seconds for those that took the signal, then KILL.
# slurmctld saves its state on TERM, so KILL is only the last resort.
kill_pids() {
  local label=$1 p; shift
  local pids=()
  for p in "$@"; do kill -TERM "$p" 2>/dev/null && pids+=("$p"); done
  [ ${#pids[@]} -eq 0 ] && return 0
  if ! wait_gone $((${STOP_TIMEOUT:-15} * 10)) "${pids[@]}"; then
    for p in "${pids[@]}"; do
      if running "$p"; then log "$label pid $p ignored TERM, sending KILL"; kill -KILL "$p" 2>/dev/null || true; fi
    done
    wait_gone 50 "${pids[@]}" || log "WARNING: $label pid ${pids[*]} still there after KILL"
  fi
  log "stopped $label (pid ${pids[*]})"
}

# stop_pidfiles LABEL PIDFILE...: stop the live processes (of ours) that the PID files name; the files go.
stop_pidfiles() {
  local label=$1 f; shift
  local pids=()
  for f in "$@"; do
    if alive "$f"; then pids+=("$(head -n 1 "$f")"); fi
    rm -f "$f"
  done
  kill_pids "$label" "${pids[@]}"
}

slurmd_pidfiles() { compgen -G "$RUN/slurmd-*.pid" || true; }

# stop_slurmd [NODE...]: every slurmd that has a PID file, or only those of the NODEs given.
stop_slurmd() {
  local files=() n
  if [ $# -eq 0 ]; then mapfile -t files < <(slurmd_pidfiles)
  else for n in "$@"; do files+=("$RUN/slurmd-$n.pid"); done; fi
  [ ${#files[@]} -eq 0 ] || stop_pidfiles "slurmd ${*:-(all)}" "${files[@]}"
}

# Jobs go first so that their slurmstepd and user processes end with the cluster instead of outliving slurmd.
cancel_jobs() {
  alive "$RUN/slurmctld.pid" || return 0
  local jobs i
  mapfile -t jobs < <(slurm_cmd squeue -h -o %i 2>/dev/null)
  [ ${#jobs[@]} -gt 0 ] || return 0
  slurm_cmd scancel "${jobs[@]}" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    [ -z "$(slurm_cmd squeue -h -t PD,R,S,CG,CF -o %i 2>/dev/null)" ] && break
    sleep 0.1
  done
  log "cancelled jobs: ${jobs[*]}"
}

# purge_dir [RM_OPTION...]: delete the harness's directory (SLURM_DIR, or the Kubernetes harness's KUBE_DIR: the one
# that holds MARKER), but only when the marker file shows that the harness made it.
purge_dir() {
  local dir
  dir=$(dirname "$MARKER")
  [ -f "$MARKER" ] || die "$dir has no $(basename "$MARKER") marker; not deleting it"
  rm -rf "$@" "$dir"
  log "purged $dir"
}

# ------------------------------------------------------------------------------------------------ waiting
# Set once by a harness (microseconds since the epoch, as ${EPOCHREALTIME/./}) to share one deadline among all
# waits; empty: each wait_for gets UP_TIMEOUT seconds of its own.
WAIT_DEADLINE=
# 1: tail_logs also names the files that are empty or missing.
TAIL_NOTE_MISSING=0

# tail_logs FILE...: the last lines of each existing file, for failure messages.
tail_logs() {
  local f
  for f in "$@"; do
    if [ -s "$f" ]; then echo "--- tail $f" >&2; tail -n 15 "$f" >&2
    elif [ "$TAIL_NOTE_MISSING" = 1 ]; then echo "--- $f: empty or missing" >&2; fi
  done
  return 0
}

# wait_for DESCRIPTION COMMAND...: poll COMMAND every 0.1 s until the deadline. A shared deadline may have passed
# before a wait begins, so then COMMAND gets one last try.
wait_for() {
  local what=$1 deadline=${WAIT_DEADLINE:-$((${EPOCHREALTIME/./} + UP_TIMEOUT * 1000000))}; shift
  while ((${EPOCHREALTIME/./} < deadline)); do "$@" && return 0; sleep 0.1; done
  [ -n "$WAIT_DEADLINE" ] && "$@" && return 0
  err "$what did not come up within ${UP_TIMEOUT}s"
  return 1
}

# ------------------------------------------------------------------------------------------------ up.sh
# The tunables whose meaning and default both harnesses share (ports and directories are each harness's own).
shared_defaults() {
  NUM_NODES=${NUM_NODES:-1}
  NODE_PREFIX=${NODE_PREFIX:-node}
  NODE_FIRST=${NODE_FIRST:-1}
  [[ $NODE_PREFIX =~ ^[a-z][a-z0-9-]*$ ]] || die "NODE_PREFIX must be a lower-case name, got '$NODE_PREFIX'"
  [[ $NODE_FIRST =~ ^[0-9]+$ ]] || die "NODE_FIRST must be a number, got '$NODE_FIRST'"
  NODE_CPUS=${NODE_CPUS:-8}
  NODE_MEM=${NODE_MEM:-32000}
  K8SCPU=${K8SCPU:-$NODE_CPUS}
  K8SMEM=${K8SMEM:-$NODE_MEM}
  CLUSTER=${CLUSTER:-colocate}
  HOLDS_PARTITION=${HOLDS_PARTITION:-1}
  UP_TIMEOUT=${UP_TIMEOUT:-60}
  SKIP_APT=${SKIP_APT:-0}
}

# The partition that colocate keeps its hold jobs (Kubernetes' share of a node) in (HOLDS_PARTITION=1). An
# immediate allocation must be the top job of its partitions, so the holds have a partition of their own, above
# every other PriorityTier, that never preempts or is preempted; Hidden keeps it out of unprivileged users' sinfo
# and squeue (root still sees it).
# It must be in slurm.conf: a partition made with scontrol create vanishes at a slurmctld restart, with its jobs.
holds_partition_line() {
  echo "PartitionName=holds Nodes=ALL PriorityTier=65000 PreemptMode=OFF MaxTime=INFINITE Hidden=YES RootOnly=YES State=UP"
}

# require_numbers VAR...: each variable holds a plain non-negative integer.
require_numbers() {
  local v
  for v in "$@"; do [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"; done
}

# ensure_key FILE BYTES OWNER MODE: a random key of BYTES bytes, made once and kept across restarts.
ensure_key() {
  if [ ! -s "$1" ]; then dd if=/dev/urandom of="$1" bs="$2" count=1 status=none; fi
  chown "$3" "$1"; chmod "$4" "$1"
}

# Nodes are NODE_PREFIX + NODE_FIRST.. (node1..nodeN by default; a test may name them as a SlurmCluster's workers).
node_names() { seq -f "${NODE_PREFIX}%g" "$NODE_FIRST" "$((NODE_FIRST + NUM_NODES - 1))" | paste -sd' '; }

node_range() {
  if [ "$NUM_NODES" = 1 ]; then NODES_EXPR=$NODE_PREFIX$NODE_FIRST; PORTS_EXPR=$SLURMD_PORT_BASE
  else NODES_EXPR="$NODE_PREFIX[$NODE_FIRST-$((NODE_FIRST + NUM_NODES - 1))]"
    PORTS_EXPR="[$SLURMD_PORT_BASE-$((SLURMD_PORT_BASE + NUM_NODES - 1))]"; fi
}

# render_gres_conf DIR: gres.conf for the nodes of node_range, the same for both releases: the k8scpu and k8smemory
# GRES are plain counts that the copilot changes at run time.
render_gres_conf() {
  cat > "$1/gres.conf" <<EOF
NodeName=$NODES_EXPR Name=k8scpu Flags=CountOnly Count=$K8SCPU
NodeName=$NODES_EXPR Name=k8smemory Flags=CountOnly Count=$K8SMEM
EOF
}

# stage_config FILE...: render_config writes the configuration into ETC/.staged. If a FILE there differs from the
# one in ETC (or stands on one side only) while a daemon of this cluster runs, shows the difference and exits 3:
# restarting on its own would silently cancel or disturb a test's running jobs. Otherwise the caller installs the
# staged files and removes ETC/.staged.
stage_config() {
  local staged=$ETC/.staged f changed=""
  rm -rf "$staged"; mkdir -p "$staged"
  render_config "$staged"
  for f in "$@"; do
    if [ -f "$staged/$f" ] || [ -f "$ETC/$f" ]; then cmp -s "$staged/$f" "$ETC/$f" 2>/dev/null || changed="$changed $f"; fi
  done
  if [ -n "$changed" ] && any_daemon_alive; then
    for f in $changed; do diff -u "$ETC/$f" "$staged/$f" >&2 || true; done
    rm -rf "$staged"
    err "the running cluster in $SLURM_DIR uses another configuration ($changed )."
    err_more "Run down.sh first, then up.sh with the new settings."
    exit 3
  fi
}

ctld_up() { [[ $(slurm_cmd scontrol ping 2>/dev/null) == *"is UP"* ]]; }

start_slurmctld() {
  if ! alive "$RUN/slurmctld.pid"; then
    log "starting slurmctld on 127.0.0.1:$CTLD_PORT"
    slurm_cmd /usr/sbin/slurmctld </dev/null >>"$LOGS/slurmctld.out" 2>&1 ||
      { tail_logs "$LOGS/slurmctld.out" "$LOGS/slurmctld.log"; die "slurmctld failed to start"; }
  fi
  wait_for slurmctld ctld_up || { tail_logs "$LOGS/slurmctld.out" "$LOGS/slurmctld.log"; exit 1; }
}

# Name, state and SlurmdStartTime of every node, one line each.
node_table() {
  slurm_cmd scontrol -o show node 2>/dev/null | awk '{
    name = state = start = ""
    for (i = 1; i <= NF; i++) {
      if (name == "" && $i ~ /^NodeName=/) name = substr($i, 10)
      else if (state == "" && $i ~ /^State=/) state = substr($i, 7)
      else if (start == "" && $i ~ /^SlurmdStartTime=/) start = substr($i, 17) }
    print name, state, start }'
}

# show_node_state NODE: the lines of scontrol show node that say why a node is not usable, on stderr.
show_node_state() { slurm_cmd scontrol show node "$1" | grep -E 'NodeName|State=|Reason' >&2 || true; }

now_iso() { date +%Y-%m-%dT%H:%M:%S; }

# Starts a slurmd for every node in NODES that has no live one; sets STARTED and LAUNCH for not_ready_nodes.
start_slurmds() {
  local n to_start=()
  for n in $NODES; do alive "$RUN/slurmd-$n.pid" || to_start+=("$n"); done
  STARTED=" ${to_start[*]} "
  [ ${#to_start[@]} -eq 0 ] && return 0
  # Until a restarted slurmd registers, slurmctld still shows its predecessor's state, so a node started here
  # counts as ready only with a SlurmdStartTime from this launch on. That time has 1 s resolution: if a
  # predecessor started in the current second, launch in the next one (a node that never ran shows None).
  LAUNCH=$(now_iso)
  if node_table | awk -v l="$LAUNCH" -v s="$STARTED" 'index(s, " " $1 " ") && $3 ~ /^[0-9]/ && $3 >= l { f = 1 } END { exit !f }'; then
    while [ "$(now_iso)" = "$LAUNCH" ]; do sleep 0.05; done
    LAUNCH=$(now_iso)
  fi
  # Always started as /usr/sbin/slurmd: Slurm keys on argv[0], and under another name (slurmd-wlm, the emulator)
  # it drops the node's Gres= silently.
  for n in "${to_start[@]}"; do
    mkdir -p "$SPOOL/$n"
    slurm_cmd /usr/sbin/slurmd -N "$n" </dev/null >>"$LOGS/slurmd-$n.out" 2>&1 ||
      { tail_logs "$LOGS/slurmd-$n.out" "$LOGS/slurmd-$n.log"; die "slurmd -N $n failed to start"; }
  done
  log "started slurmd for: ${to_start[*]}"
}

# Prints the nodes that have not registered yet: not responding ("*"), DOWN, UNKNOWN (slurmctld just restarted),
# or started by this run but not yet registered by the new slurmd.
not_ready_nodes() {
  local table
  table=$(node_table) || { echo "$NODES"; return; }
  awk -v l="${LAUNCH:-}" -v s="${STARTED:- }" -v want="$NODES" '
    { st[$1] = $2; t[$1] = $3 }
    END {
      n = split(want, w, " ")
      for (i = 1; i <= n; i++) {
        x = w[i]
        ok = st[x] != "" && st[x] !~ /[*]|^DOWN|^UNKNOWN|^FUTURE|NOT_RESPONDING/
        if (ok && index(s, " " x " ")) ok = t[x] ~ /^[0-9][0-9][0-9][0-9]-/ && t[x] >= l
        if (!ok) print x
      }
    }' <<<"$table"
}
nodes_ready() { [ -z "$(not_ready_nodes)" ]; }

# wait_nodes_registered LOG_SUFFIX...: wait until every node has registered; on timeout show up to three of the
# missing nodes and the tails of slurmctld.log and of their slurmd-<node>.<LOG_SUFFIX> files, and exit 1.
wait_nodes_registered() {
  local logs n s
  if ! wait_for "registration of all $NUM_NODES nodes" nodes_ready; then
    logs=("$LOGS/slurmctld.log")
    for n in $(not_ready_nodes | head -n 3); do
      show_node_state "$n"
      for s in "$@"; do logs+=("$LOGS/slurmd-$n.$s"); done
    done
    tail_logs "${logs[@]}"; exit 1
  fi
  log "nodes registered: $NUM_NODES"
}

# exit_if_drained RESUME_CMD: exit 4 if some node is drained, naming RESUME_CMD (how scontrol is run) to resume it.
# A drain never clears by itself (and is kept in StateSaveLocation across restarts), so waiting would not help.
exit_if_drained() {
  local drained n
  drained=$(node_table | awk '$2 ~ /DRAIN|FAIL|INVALID/ { print $1 }' | paste -sd' ')
  [ -n "$drained" ] || return 0
  for n in $drained; do show_node_state "$n"; done
  err "daemons are up, but node(s) $drained are drained. Resume them with"
  err_more "$1 update NodeName=<node> State=RESUME, or start afresh with down.sh --purge."
  exit 4
}
