#!/bin/bash
# up.sh - bring up a real single-host Slurm 24.11 (Debian 13 packages in a debootstrap root) on loopback for
# colocate's slurm tests. Run as root; no systemd needed. Starts a private munged, slurmctld, NUM_NODES slurmd and
# slurmrestd (JWT), all chrooted in ROOT inside a private mount+UTS namespace that shares the host network, then
# waits until all of them answer. Source $SLURM_DIR/env.sh afterwards; run Slurm commands through
# $SLURM_CHROOT_CMD (run-in-root.sh), because the host's own Slurm client (22.05, if any) cannot talk to 24.11.
#
# Environment (defaults in brackets):
#   SLURM_DIR [/tmp/colocate-slurm-2411]  etc/ state/ spool/<node>/ log/ run/ munge/ tmp/ env.sh; bind-mounted
#                                         into the chroot at the same path; tmp/ is the chroot's /tmp
#   ROOT [/var/tmp/colocate-slurm-24.11-root]  the trixie root; built by make-root.sh when missing
#   NUM_NODES [1]                    slurmd count; nodes are node1..nodeN, all on this host, ports SLURMD_PORT_BASE..
#   NODE_PREFIX [node]  NODE_FIRST [1]   node names: NODE_PREFIX followed by NODE_FIRST, NODE_FIRST+1, ...
#   NODE_CPUS [8]  NODE_MEM [32000]  CPUs and RealMemory (MB) per node (config_overrides: may exceed the hardware)
#   K8SCPU [NODE_CPUS]  K8SMEM [NODE_MEM]   initial GRES counts k8scpu / k8smemory (MB) per node
#   CLUSTER [colocate]  CTLD_PORT [26817]  SLURMD_PORT_BASE [27001]  REST_PORT [26820]
#   HOLDS_PARTITION [1]              1 = add the hidden partition "holds" (all nodes, PriorityTier=65000,
#                                        PreemptMode=OFF) that colocate keeps its hold jobs in; 0 = leave it out
#   JOB_SUBMIT_LUA [0]               1 = install src/main/slurm/job_submit.lua and JobSubmitPlugins=lua
#   JWKS_FILE []                     a JWKS (public RSA keys, kid and alg RS256) slurmctld verifies RS256 tokens
#                                        against, besides the HS256 key (AuthAltParameters jwks=)
#   UP_TIMEOUT [60]                  seconds to wait for each daemon before failing
#   SKIP_APT [0]                     1 = never run apt-get (passed to make-root.sh)
#
# Idempotent: a daemon whose PID file names a live process in ROOT is left alone, so `down.sh <daemon>; up.sh`
# restarts just that daemon. If the generated configuration differs from the one the running daemons use (another
# NUM_NODES, say), up.sh refuses with exit code 3 and shows the difference: run down.sh first.
# Exit codes: 0 all daemons up and every node idle (or mixed/allocated by running jobs); 1 something failed to
# come up within UP_TIMEOUT (the relevant log tails are printed); 3 configuration differs from the running one;
# 4 everything runs and env.sh is written, but some node is drained (e.g. INVALID_REG after a slurmd restart).
# With COLOCATE_SLURM_SERIES=26.05 (../slurm-26.05/up.sh) it runs Slurm 26.05 instead, with the defaults that
# series.sh gives that series.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=up-${COLOCATE_SLURM_SERIES:-24.11}
# shellcheck source=SCRIPTDIR/lib.sh
. "$HERE/lib.sh"
# A SLURM_JWT in the caller's environment would switch scontrol/srun to auth/jwt, which slurmd rejects.
unset SLURM_JWT

ROOT=${ROOT:-$DEFAULT_ROOT}
shared_defaults   # NUM_NODES NODE_CPUS NODE_MEM K8SCPU K8SMEM CLUSTER HOLDS_PARTITION UP_TIMEOUT SKIP_APT, as above
CTLD_PORT=${CTLD_PORT:-$DEFAULT_CTLD_PORT}
SLURMD_PORT_BASE=${SLURMD_PORT_BASE:-$DEFAULT_SLURMD_PORT_BASE}
REST_PORT=${REST_PORT:-$DEFAULT_REST_PORT}
JOB_SUBMIT_LUA=${JOB_SUBMIT_LUA:-0}
LUA_SRC=$HERE/../../../main/slurm/job_submit.lua
# REST_API (the openapi version checked on /diag) comes from series.sh: v0.0.42 for 24.11.

[ "$(id -u)" = 0 ] || die "run as root"
require_numbers NUM_NODES NODE_CPUS NODE_MEM K8SCPU K8SMEM CTLD_PORT SLURMD_PORT_BASE REST_PORT UP_TIMEOUT
[ "$NUM_NODES" -ge 1 ] || die "NUM_NODES must be >= 1"
[[ $HOLDS_PARTITION =~ ^[01]$ ]] || die "HOLDS_PARTITION must be 0 or 1, got '$HOLDS_PARTITION'"
[[ $JOB_SUBMIT_LUA =~ ^[01]$ ]] || die "JOB_SUBMIT_LUA must be 0 or 1, got '$JOB_SUBMIT_LUA'"
[[ $SLURM_DIR =~ ^/[A-Za-z0-9._/-]+[A-Za-z0-9._-]$ ]] || die "SLURM_DIR must be an absolute path of [A-Za-z0-9._/-], got '$SLURM_DIR'"
[[ $ROOT =~ ^/[A-Za-z0-9._/-]+$ ]] || die "ROOT must be an absolute path of [A-Za-z0-9._/-], got '$ROOT'"
[[ $CLUSTER =~ ^[a-z0-9_-]+$ ]] || die "CLUSTER must be lower case [a-z0-9_-], got '$CLUSTER'"
[[ $SERIES_DIR =~ ^[A-Za-z0-9._/-]+$ ]] || die "the harness path '$SERIES_DIR' has characters that SLURM_CHROOT_CMD cannot carry"
for c in unshare nsenter setsid curl; do command -v $c >/dev/null || die "$c is required on the host"; done

# Failure messages name the log files that are empty or missing too (tail_logs).
TAIL_NOTE_MISSING=1
# A single deadline for the whole start-up, so that a failure is reported within about UP_TIMEOUT seconds.
WAIT_DEADLINE=$((${EPOCHREALTIME/./} + UP_TIMEOUT * 1000000))

# port_free PORT: nothing accepts connections on 127.0.0.1:PORT (e.g. the 22.05 harness's daemons).
port_free() { ! timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
need_port() { port_free "$1" || die "port $1 ($2) is in use by a process that is not this cluster's; choose another ${3:-}"; }

# ------------------------------------------------------------------------------------------------ root fs
if [ ! -f "$ROOT/.colocate-root-complete" ]; then
  log "no complete root at $ROOT: running make-root.sh"
  ROOT=$ROOT SKIP_APT=$SKIP_APT "$HERE/make-root.sh"
fi
ROOT=$(readlink -f "$ROOT")
case "$SLURM_DIR/" in "$ROOT"/*) die "SLURM_DIR must not lie inside ROOT" ;; esac
case "$ROOT/" in "$SLURM_DIR"/*) die "ROOT must not lie inside SLURM_DIR" ;; esac
# Owners of SLURM_DIR files as the chroot's users (their IDs need not match the host's users of the same name).
root_id() { chroot "$ROOT" id "$1" "$2" 2>/dev/null || die "user $2 missing in $ROOT; rebuild it with REBUILD=1 make-root.sh"; }
SLURM_UID=$(root_id -u slurm) SLURM_GID=$(root_id -g slurm) MUNGE_UID=$(root_id -u munge) MUNGE_GID=$(root_id -g munge)
# shellcheck disable=SC2016  # dpkg-query's own ${...} format
SLURM_VERSION=$(chroot "$ROOT" dpkg-query -W -f='${Version}' slurmctld | sed 's/-.*//')

# ------------------------------------------------------------------------------------------------ config
# Writes slurm.conf, gres.conf, hosts and up.params into directory $1.
render_config() {
  local out=$1 holds="" jwks="" lua=""
  node_range
  [ "$HOLDS_PARTITION" = 1 ] && holds=$(holds_partition_line)
  [ "$JOB_SUBMIT_LUA" = 1 ] && lua="JobSubmitPlugins=lua"
  # JWKS_FILE: slurmctld also verifies RS256 tokens against that JWKS (copied to ETC/jwks.json; read at its start).
  if [ -n "${JWKS_FILE:-}" ]; then
    install -m 0644 "$JWKS_FILE" "$out/jwks.json"
    jwks=",jwks=$ETC/jwks.json"
  fi
  # Why the less usual settings: linuxproc/task none work without cgroups in a container; DefMemPerCPU keeps a
  # job from taking the whole node's memory; config_overrides keeps nodes advertising more CPUs/memory than the
  # host from draining ("Low CPUs"); ReturnToService=2 brings a restarted slurmd back without scontrol resume;
  # AuthInfo points auth/munge and cred/munge at our own munged, never at the host's /run/munge.
  cat > "$out/slurm.conf" <<EOF
# generated by slurm-$SLURM_SERIES/up.sh - do not edit, rerun up.sh
ClusterName=$CLUSTER
SlurmctldHost=$SLURM_HOSTNAME(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT_BASE
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY$jwks
CommunicationParameters=NoInAddrAny
StateSaveLocation=$STATE
SlurmdSpoolDir=$SPOOL/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
GresTypes=k8scpu,k8smemory
$lua
NodeName=$NODES_EXPR NodeHostname=$SLURM_HOSTNAME NodeAddr=127.0.0.1 Port=$PORTS_EXPR CPUs=$NODE_CPUS RealMemory=$NODE_MEM Gres=k8scpu:$K8SCPU,k8smemory:$K8SMEM State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
$holds
EOF
  render_gres_conf "$out"
  # Bind-mounted over the chroot's /etc/hosts: slurmctld must find its SlurmctldHost name as the host name.
  printf '127.0.0.1\tlocalhost %s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$SLURM_HOSTNAME" > "$out/hosts"
  # Not a Slurm file: settings outside the Slurm configs that the running daemons were started with.
  printf 'ROOT=%s\nREST_PORT=%s\n' "$ROOT" "$REST_PORT" > "$out/up.params"
}

any_daemon_alive() {
  local f
  for f in "$RUN"/*.pid "$MUNGE_DIR/munged.pid"; do [ "$f" = "$HOLDER_PID" ] || ! alive "$f" || return 0; done
  return 1
}

install_config() {
  local staged=$ETC/.staged f
  stage_config slurm.conf gres.conf hosts up.params jwks.json
  for f in slurm.conf gres.conf hosts up.params; do install -m 0644 "$staged/$f" "$ETC/$f"; done
  if [ -f "$staged/jwks.json" ]; then install -m 0644 "$staged/jwks.json" "$ETC/jwks.json"; else rm -f "$ETC/jwks.json"; fi
  rm -rf "$staged"
  # job_submit/lua re-reads the script when it changes, so a new version may replace it while slurmctld runs.
  if [ "$JOB_SUBMIT_LUA" = 1 ]; then
    [ -f "$LUA_SRC" ] || die "JOB_SUBMIT_LUA=1 but $LUA_SRC is missing"
    install -m 0644 "$LUA_SRC" "$ETC/job_submit.lua"
  else
    rm -f "$ETC/job_submit.lua"
  fi
}

prepare_dir() {
  mkdir -p "$ETC" "$STATE" "$SPOOL" "$LOGS" "$RUN" "$MUNGE_DIR" "$JOB_TMP"
  touch "$MARKER"
  chmod 0755 "$SLURM_DIR" "$ETC" "$RUN"
  chmod 1777 "$JOB_TMP"
  chown "$SLURM_UID:$SLURM_GID" "$STATE" "$LOGS"
  # munged checks that its key, socket, PID and log directories are writable by nobody else.
  chown "$MUNGE_UID:$MUNGE_GID" "$MUNGE_DIR"; chmod 0755 "$MUNGE_DIR"
  ensure_key "$MUNGE_DIR/munge.key" 1024 "$MUNGE_UID:$MUNGE_GID" 0400
  ensure_key "$JWT_KEY" 32 "$SLURM_UID:$SLURM_GID" 0600
}

# ------------------------------------------------------------------------------------------------ namespace
mounted() { NS mountpoint -q "$1"; }

# The holder process keeps the private mount+UTS namespace alive while no daemon runs in it; the /proc, /sys,
# /dev and SLURM_DIR mounts into ROOT exist only there, so they vanish with the last process of the cluster.
ensure_namespace() {
  if ! holder_alive; then
    any_daemon_alive && die "daemons of $SLURM_DIR run but their namespace holder is gone; run down.sh first"
    rm -f "$HOLDER_PID"
    # shellcheck disable=SC2016  # expanded by the inner bash, which writes its own PID before the exec
    setsid -f unshare --mount --uts --propagation private -- \
      bash -c 'echo $$ > "$1"; exec -a "$2" sleep infinity' _ "$HOLDER_PID" "$HOLDER_NAME" </dev/null >/dev/null 2>&1
    wait_for "namespace holder" holder_alive || die "could not create the namespace holder"
    log "namespace holder pid $(holder)"
  fi
  NS hostname "$SLURM_HOSTNAME"
  mounted "$ROOT/proc" || NS mount -t proc proc "$ROOT/proc"
  mounted "$ROOT/sys" || NS mount --rbind /sys "$ROOT/sys"
  if ! mounted "$ROOT/dev"; then
    NS mount --rbind /dev "$ROOT/dev"
    # the job's shared memory stays apart from the host's /dev/shm
    NS mount -t tmpfs -o mode=1777,size=256m tmpfs "$ROOT/dev/shm"
  fi
  mounted "$ROOT/tmp" || NS mount --bind "$JOB_TMP" "$ROOT/tmp"
  [ -e "$ROOT/etc/hosts" ] || : > "$ROOT/etc/hosts"   # minbase has none; the mount needs a file to cover
  mounted "$ROOT/etc/hosts" || NS mount --bind "$ETC/hosts" "$ROOT/etc/hosts"
  if ! mounted "$ROOT$SLURM_DIR"; then
    NS mkdir -p "$ROOT$SLURM_DIR"
    NS mount --bind "$SLURM_DIR" "$ROOT$SLURM_DIR"
  fi
}

# ------------------------------------------------------------------------------------------------ daemons
munge_ok() { CH sh -c "munge -n -S '$MUNGE_SOCKET' | unmunge -S '$MUNGE_SOCKET'" >/dev/null 2>&1; }

start_munged() {
  if ! alive "$MUNGE_DIR/munged.pid"; then
    log "starting munged (socket $MUNGE_SOCKET)"
    rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
    CH setpriv --reuid=munge --regid=munge --clear-groups /usr/sbin/munged -S "$MUNGE_SOCKET" \
      --key-file="$MUNGE_DIR/munge.key" --pid-file="$MUNGE_DIR/munged.pid" --log-file="$MUNGE_DIR/munged.log" \
      --seed-file="$MUNGE_DIR/munged.seed" </dev/null >>"$LOGS/munged.out" 2>&1 ||
      { tail_logs "$LOGS/munged.out" "$MUNGE_DIR/munged.log"; die "munged failed to start"; }
  fi
  wait_for munged munge_ok || { tail_logs "$LOGS/munged.out" "$MUNGE_DIR/munged.log"; exit 1; }
}

rest_code() { curl -s -o "${REST_OUT:-/dev/null}" -w '%{http_code}' --max-time 2 "$@" || true; }
rest_listening() { [ "$(rest_code "http://127.0.0.1:$REST_PORT/slurm/$REST_API/ping")" != 000 ]; }

start_slurmrestd() {
  if ! alive "$RUN/slurmrestd.pid"; then
    log "starting slurmrestd on 127.0.0.1:$REST_PORT"
    # slurmrestd refuses to run as root or SlurmUser: it binds as root, then switches to -u. Without
    # SLURM_JWT=daemon it rejects the clients' tokens; without slurmdbd only openapi/slurmctld can load.
    # The inner sh writes its own PID (a host PID: there is no PID namespace) and then becomes slurmrestd.
    # shellcheck disable=SC2016
    setsid -f nsenter -t "$(holder)" -m -u -- env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 SLURM_CONF="$CONF" \
      SLURM_JWT=daemon chroot "$ROOT" sh -c 'echo $$ > "$1"; shift; exec "$@"' _ "$RUN/slurmrestd.pid" \
      /usr/sbin/slurmrestd -s openapi/slurmctld -a rest_auth/jwt -u slurmrestd -g slurmrestd "127.0.0.1:$REST_PORT" \
      </dev/null >>"$LOGS/slurmrestd.log" 2>&1
  fi
  wait_for slurmrestd rest_listening || { tail_logs "$LOGS/slurmrestd.log"; exit 1; }
  # /ping answers even with a bad token, so prove that JWT authentication works end to end on /diag.
  local token code
  token=$(CH scontrol token username=slurm lifespan=60 | sed -n 's/^SLURM_JWT=//p')
  code=$(REST_OUT=$RUN/diag.check rest_code -H "X-SLURM-USER-NAME: slurm" -H "X-SLURM-USER-TOKEN: $token" \
    "http://127.0.0.1:$REST_PORT/slurm/$REST_API/diag")
  [ "$code" = 200 ] || { tail_logs "$RUN/diag.check" "$LOGS/slurmrestd.log" "$LOGS/slurmctld.log";
    die "slurmrestd /diag with a SlurmUser token gave HTTP $code"; }
  rm -f "$RUN/diag.check"
}

write_env() {
  cat > "$SLURM_DIR/env.sh.new" <<EOF
# generated by slurm-$SLURM_SERIES/up.sh: source it before running slurm tests. Slurm client commands must run in the
# chroot: \$SLURM_CHROOT_CMD scontrol show node. SLURM_CONF is valid inside the chroot (and names the same file on
# the host) but the host's own Slurm client cannot use it. Never export SLURM_JWT: srun step launch then fails.
export SLURM_DIR="$SLURM_DIR"
export SLURM_ROOT="$ROOT"
export SLURM_CONF="$CONF"
export SLURM_REST_URL="http://127.0.0.1:$REST_PORT"
export SLURM_JWT_KEY="$JWT_KEY"
export SLURM_NODES="$NODES"
export SLURM_CLUSTER="$CLUSTER"
export SLURM_VERSION="$SLURM_VERSION"
export SLURM_CHROOT_CMD="$SERIES_DIR/run-in-root.sh --dir $SLURM_DIR"
EOF
  mv "$SLURM_DIR/env.sh.new" "$SLURM_DIR/env.sh"
}

# Every port a daemon about to start will bind, checked before anything starts, so that a clash (with the 22.05
# harness, say) fails at once instead of after half the cluster is up.
check_ports() {
  local n
  alive "$RUN/slurmctld.pid" || need_port "$CTLD_PORT" slurmctld CTLD_PORT
  alive "$RUN/slurmrestd.pid" || need_port "$REST_PORT" slurmrestd REST_PORT
  for n in $NODES; do
    alive "$RUN/slurmd-$n.pid" || need_port $((SLURMD_PORT_BASE + ${n#"$NODE_PREFIX"} - NODE_FIRST)) "slurmd $n" SLURMD_PORT_BASE
  done
}

# ------------------------------------------------------------------------------------------------ main
NODES=$(node_names)
prepare_dir
install_config
check_ports
ensure_namespace
start_munged
start_slurmctld
start_slurmds
wait_nodes_registered out log
start_slurmrestd
write_env
# shellcheck disable=SC2016  # the hint names the variable, for the user to expand
exit_if_drained '$SLURM_CHROOT_CMD scontrol'
log "Slurm $SLURM_VERSION cluster '$CLUSTER' up in $SLURM_DIR, $NUM_NODES node(s) (source $SLURM_DIR/env.sh)"
