#!/bin/bash
# up.sh - bring up a real single-host Slurm 22.05 (Debian 12 packages) on loopback for colocate's slurm tests.
# Run as root; no systemd needed. Starts munged (only if munge is not already working), optionally MariaDB and
# slurmdbd, slurmctld, NUM_NODES slurmd and slurmrestd (JWT), then waits until all of them answer.
# Everything lives under SLURM_DIR; /etc/slurm is never touched. Source $SLURM_DIR/env.sh afterwards.
#
# Environment (defaults in brackets):
#   SLURM_DIR [/tmp/colocate-slurm]  base dir: etc/ state/ spool/<node>/ log/ run/ mysql/ env.sh
#   NUM_NODES [1]                    slurmd count; nodes are node1..nodeN, all on this host, ports SLURMD_PORT_BASE..
#   NODE_PREFIX [node]  NODE_FIRST [1]   node names: NODE_PREFIX followed by NODE_FIRST, NODE_FIRST+1, ...
#   NODE_CPUS [8]  NODE_MEM [32000]  CPUs and RealMemory (MB) per node (config_overrides: may exceed the hardware)
#   K8SCPU [NODE_CPUS]  K8SMEM [NODE_MEM]   initial GRES counts k8scpu / k8smemory (MB) per node
#   CLUSTER [colocate]  CTLD_PORT [6817]  SLURMD_PORT_BASE [17001]  REST_PORT [6820]
#   JOB_SUBMIT_LUA [0]               1 = install src/main/slurm/job_submit.lua and JobSubmitPlugins=lua
#   HOLDS_PARTITION [1]              1 = add the hidden partition "holds" (all nodes, PriorityTier=65000,
#                                        PreemptMode=OFF) that colocate keeps its hold jobs in; 0 = leave it out
#   WITH_SLURMDBD [0]                1 = MariaDB (data in SLURM_DIR/mysql, port MARIADB_PORT [13306]) + slurmdbd
#                                        (DBD_PORT [6819]), accounting on, AccountingStorageTRES=gres/k8s*
#   UP_TIMEOUT [60]                  seconds to wait for each daemon before failing
#   SKIP_APT [0]                     1 = never run apt-get
# Argument: --install-only installs the packages (WITH_SLURMDBD=1 includes MariaDB and slurmdbd) and exits.
#
# Writes $SLURM_DIR/env.sh (KEY="value" exports): SLURM_DIR SLURM_CONF SLURM_REST_URL SLURM_JWT_KEY (HS256 key
# file, slurm:slurm 0600) SLURM_NODES (space-separated) SLURM_CLUSTER SLURM_WITH_SLURMDBD. It exports no
# SLURM_JWT on purpose: with it set, srun's step launch fails, because slurmd accepts only munge.
#
# Idempotent: a daemon whose PID file names a live process is left alone, so `down.sh <daemon>; up.sh` restarts
# just that daemon. If the generated configuration differs from the one the running daemons use (another
# NUM_NODES, say), up.sh refuses with exit code 3 and shows the difference: run down.sh first. It does not
# restart on its own, because a restart would silently cancel or disturb a test's running jobs.
# Exit codes: 0 all daemons up and every node idle (or mixed/allocated by running jobs); 1 something failed to
# come up within UP_TIMEOUT (the relevant log tails are printed); 3 configuration differs from the running one;
# 4 everything runs and env.sh is written, but some node is drained, e.g. "gres/k8scpu count changed and jobs
# are using them" after a slurmd restart (tests that provoke this on purpose accept 4).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=up
. "$HERE/lib.sh"
# A SLURM_JWT in the caller's environment would switch scontrol/srun below to auth/jwt, which slurmd rejects.
unset SLURM_JWT

shared_defaults   # NUM_NODES NODE_CPUS NODE_MEM K8SCPU K8SMEM CLUSTER HOLDS_PARTITION UP_TIMEOUT SKIP_APT, as above
CTLD_PORT=${CTLD_PORT:-6817}
SLURMD_PORT_BASE=${SLURMD_PORT_BASE:-17001}
REST_PORT=${REST_PORT:-6820}
DBD_PORT=${DBD_PORT:-6819}
MARIADB_PORT=${MARIADB_PORT:-13306}
JOB_SUBMIT_LUA=${JOB_SUBMIT_LUA:-0}
WITH_SLURMDBD=${WITH_SLURMDBD:-0}
LUA_SRC=$HERE/../../main/slurm/job_submit.lua
HOST=$(hostname -s)
JWT_KEY=$ETC/jwt_hs256.key

[ "$(id -u)" = 0 ] || die "run as root"
require_numbers NUM_NODES NODE_CPUS NODE_MEM K8SCPU K8SMEM CTLD_PORT SLURMD_PORT_BASE REST_PORT DBD_PORT MARIADB_PORT UP_TIMEOUT
[ "$NUM_NODES" -ge 1 ] || die "NUM_NODES must be >= 1"
[[ $HOLDS_PARTITION =~ ^[01]$ ]] || die "HOLDS_PARTITION must be 0 or 1, got '$HOLDS_PARTITION'"
[[ $SLURM_DIR =~ ^/[A-Za-z0-9._/-]+$ ]] || die "SLURM_DIR must be an absolute path of [A-Za-z0-9._/-], got '$SLURM_DIR'"
[[ $CLUSTER =~ ^[a-z0-9_-]+$ ]] || die "CLUSTER must be lower case [a-z0-9_-], got '$CLUSTER'"

# ------------------------------------------------------------------------------------------------ packages
install_packages() {
  local pkgs="slurm-wlm slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin slurm-wlm-basic-plugins munge curl"
  [ "$WITH_SLURMDBD" = 1 ] && pkgs="$pkgs slurmdbd mariadb-server"
  local missing=() p
  for p in $pkgs; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$SKIP_APT" = 1 ] && die "missing packages: ${missing[*]} (SKIP_APT=1)"
  log "installing: ${missing[*]}"
  # Package postinst scripts would try to start the daemons with the system's config; policy-rc.d 101 forbids it.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 0755 /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    OWN_POLICY_RC=1
  fi
  local aptlog; aptlog=$(mktemp)
  # --no-install-recommends keeps slurm-wlm-emulator out: it would take over the slurmctld/slurmd alternatives.
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"; } >"$aptlog" 2>&1; then
    tail -n 30 "$aptlog" >&2; die "apt-get failed (full log: $aptlog)"
  fi
  rm -f "$aptlog"
  if [ "${OWN_POLICY_RC:-0}" = 1 ]; then rm -f /usr/sbin/policy-rc.d; trap - EXIT; fi
  log "packages installed"
}

# Slurm keys behaviour on argv[0]: started as slurmctld-wlm (or as the emulator), the node lines' Gres= is
# dropped silently. So the alternatives must point at the real daemons and we always exec /usr/sbin/<name>.
fix_alternatives() {
  local d
  for d in slurmctld slurmd; do
    [ -x /usr/sbin/$d-wlm ] || continue
    if [ "$(readlink -f /usr/sbin/$d)" != /usr/sbin/$d-wlm ]; then
      log "pointing /usr/sbin/$d at $d-wlm (was $(readlink -f /usr/sbin/$d))"
      update-alternatives --set $d /usr/sbin/$d-wlm >/dev/null
    fi
  done
  for d in slurmctld slurmd slurmrestd; do [ -x /usr/sbin/$d ] || die "/usr/sbin/$d missing"; done
}

# ------------------------------------------------------------------------------------------------ config
# Writes slurm.conf, gres.conf (and slurmdbd.conf) into directory $1.
render_config() {
  local out=$1 acct lua="" holds=""
  node_range
  if [ "$WITH_SLURMDBD" = 1 ]; then
    acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
AccountingStorageTRES=gres/k8scpu,gres/k8smemory
JobAcctGatherType=jobacct_gather/linux"
  else
    acct="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
  fi
  [ "$JOB_SUBMIT_LUA" = 1 ] && lua="JobSubmitPlugins=lua"
  [ "$HOLDS_PARTITION" = 1 ] && holds=$(holds_partition_line)
  # Why the less usual settings: linuxproc/task none work without cgroups in a container; DefMemPerCPU keeps a
  # job from taking the whole node's memory; config_overrides keeps nodes advertising more CPUs/memory than the
  # host from draining ("Low CPUs"); ReturnToService=2 brings a restarted slurmd back without scontrol resume.
  cat > "$out/slurm.conf" <<EOF
# generated by up.sh - do not edit, rerun up.sh
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT_BASE
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY
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
$acct
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
$lua
GresTypes=k8scpu,k8smemory
NodeName=$NODES_EXPR NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$PORTS_EXPR CPUs=$NODE_CPUS RealMemory=$NODE_MEM Gres=k8scpu:$K8SCPU,k8smemory:$K8SMEM State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
$holds
EOF
  render_gres_conf "$out"
  if [ "$WITH_SLURMDBD" = 1 ]; then
    cat > "$out/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY
DbdHost=$HOST
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=slurm
PidFile=$RUN/slurmdbd.pid
LogFile=$LOGS/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MARIADB_PORT
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=slurm
EOF
  fi
  # Not a Slurm file: settings outside the Slurm configs that the running daemons were started with.
  echo "REST_PORT=$REST_PORT WITH_SLURMDBD=$WITH_SLURMDBD MARIADB_PORT=$MARIADB_PORT" > "$out/up.params"
}

any_daemon_alive() {
  local f
  for f in "$RUN"/*.pid; do alive "$f" && return 0; done
  return 1
}

install_config() {
  local staged=$ETC/.staged f
  stage_config slurm.conf gres.conf slurmdbd.conf up.params
  for f in slurm.conf gres.conf up.params; do install -m 0644 "$staged/$f" "$ETC/$f"; done
  if [ -f "$staged/slurmdbd.conf" ]; then install -m 0600 -o slurm -g slurm "$staged/slurmdbd.conf" "$ETC/slurmdbd.conf"
  else rm -f "$ETC/slurmdbd.conf"; fi
  rm -rf "$staged"
  # job_submit/lua re-reads the script when it changes, so a new version may replace it while slurmctld runs.
  if [ "$JOB_SUBMIT_LUA" = 1 ]; then
    [ -f "$LUA_SRC" ] || die "JOB_SUBMIT_LUA=1 but $LUA_SRC is missing"
    install -m 0644 "$LUA_SRC" "$ETC/job_submit.lua"
  else
    rm -f "$ETC/job_submit.lua"
  fi
}

# ------------------------------------------------------------------------------------------------ daemons
start_munge() {
  if [ ! -s /etc/munge/munge.key ]; then
    log "creating /etc/munge/munge.key"
    mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null ||
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
  fi
  munge -n >/dev/null 2>&1 && return 0
  mkdir -p /run/munge; chown munge:munge /run/munge; chmod 0755 /run/munge
  log "starting munged"
  runuser -u munge -- /usr/sbin/munged </dev/null >>"$LOGS/munged.out" 2>&1 || { tail_logs "$LOGS/munged.out" /var/log/munge/munged.log; die "munged failed to start"; }
  # down.sh stops munged only if this file says we started it; it holds munged's PID file path.
  echo /run/munge/munged.pid > "$RUN/munged.started"
  wait_for munged bash -c 'munge -n | unmunge >/dev/null 2>&1' || { tail_logs /var/log/munge/munged.log; exit 1; }
}

mysql_root() { mariadb --no-defaults --socket="$MYSQL_DATA/mysqld.sock" -u root "$@"; }
mariadb_up() { mysql_root -e 'SELECT 1' >/dev/null 2>&1; }

start_mariadb() {
  if ! alive "$RUN/mariadb.pid"; then
    if [ ! -d "$MYSQL_DATA/mysql" ]; then
      log "initialising MariaDB in $MYSQL_DATA"
      mkdir -p "$MYSQL_DATA"; chown mysql:mysql "$MYSQL_DATA"
      mariadb-install-db --no-defaults --user=mysql --datadir="$MYSQL_DATA" --skip-test-db \
        >"$LOGS/mariadb-install.log" 2>&1 || { tail_logs "$LOGS/mariadb-install.log"; die "mariadb-install-db failed"; }
    fi
    log "starting mariadbd on 127.0.0.1:$MARIADB_PORT"
    touch "$LOGS/mariadb.log"; chown mysql:mysql "$LOGS/mariadb.log"
    # shellcheck disable=SC2016  # expanded by the inner bash, which writes its own PID before the exec
    setsid bash -c 'echo $$ > "$0"; exec "$@"' "$RUN/mariadb.pid" /usr/sbin/mariadbd --no-defaults --user=mysql \
      --datadir="$MYSQL_DATA" --socket="$MYSQL_DATA/mysqld.sock" --pid-file="$MYSQL_DATA/mariadbd.pid" \
      --bind-address=127.0.0.1 --port="$MARIADB_PORT" --skip-name-resolve --log-error="$LOGS/mariadb.log" \
      </dev/null >>"$LOGS/mariadb.log" 2>&1 &
    wait_for mariadbd mariadb_up || { tail_logs "$LOGS/mariadb.log"; exit 1; }
  fi
  mysql_root -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_slurmdbd() {
  alive "$RUN/slurmdbd.pid" && return 0
  log "starting slurmdbd on 127.0.0.1:$DBD_PORT"
  /usr/sbin/slurmdbd </dev/null >>"$LOGS/slurmdbd.out" 2>&1 || { tail_logs "$LOGS/slurmdbd.out" "$LOGS/slurmdbd.log"; die "slurmdbd failed to start"; }
  wait_for slurmdbd port_open "$DBD_PORT" || { tail_logs "$LOGS/slurmdbd.out" "$LOGS/slurmdbd.log"; exit 1; }
}

rest_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$@" "http://127.0.0.1:$REST_PORT/slurm/v0.0.38/ping" || true; }
rest_listening() { [ "$(rest_code)" != 000 ]; }

start_slurmrestd() {
  if ! alive "$RUN/slurmrestd.pid"; then
    # 22.05's dbv0.0.3x plugins fatal() without slurmdbd, so load only the slurmctld ones then.
    # shellcheck disable=SC2054  # one comma-separated -s argument
    local plugins=(-s openapi/v0.0.38,openapi/v0.0.37,openapi/v0.0.36)
    [ "$WITH_SLURMDBD" = 1 ] && plugins=()
    log "starting slurmrestd on 127.0.0.1:$REST_PORT"
    # slurmrestd refuses to run as root: it binds as root and then switches to -u. Without SLURM_JWT=daemon
    # it rejects every request's token ("Rejecting thread config token", HTTP 401).
    # shellcheck disable=SC2016
    setsid bash -c 'echo $$ > "$0"; exec "$@"' "$RUN/slurmrestd.pid" env SLURM_JWT=daemon /usr/sbin/slurmrestd \
      -u slurmrestd -a rest_auth/jwt "${plugins[@]}" "127.0.0.1:$REST_PORT" </dev/null >>"$LOGS/slurmrestd.log" 2>&1 &
  fi
  wait_for slurmrestd rest_listening || { tail_logs "$LOGS/slurmrestd.log"; exit 1; }
  local token code
  token=$(scontrol token username=root lifespan=60 | sed 's/^SLURM_JWT=//')
  code=$(rest_code -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token")
  [ "$code" = 200 ] || { tail_logs "$LOGS/slurmrestd.log" "$LOGS/slurmctld.log"; die "slurmrestd ping with a root token gave HTTP $code"; }
}

# Plain KEY="value" lines, so that tests may parse the file as well as source it.
write_env() {
  cat > "$SLURM_DIR/env.sh.new" <<EOF
# generated by up.sh: source it before running Slurm commands or slurm tests
export SLURM_DIR="$SLURM_DIR"
export SLURM_CONF="$SLURM_CONF"
export SLURM_REST_URL="http://127.0.0.1:$REST_PORT"
export SLURM_JWT_KEY="$JWT_KEY"
export SLURM_NODES="$NODES"
export SLURM_CLUSTER="$CLUSTER"
export SLURM_WITH_SLURMDBD="$WITH_SLURMDBD"
EOF
  mv "$SLURM_DIR/env.sh.new" "$SLURM_DIR/env.sh"
}

# ------------------------------------------------------------------------------------------------ main
install_packages
fix_alternatives
# --install-only: just the packages, for CI to install before the build (nothing is started or written).
if [ "${1:-}" = --install-only ]; then log "packages ready"; exit 0; fi
id slurm >/dev/null 2>&1 || die "user slurm missing (the slurm packages create it)"
id slurmrestd >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin slurmrestd

mkdir -p "$ETC" "$STATE" "$SPOOL" "$LOGS" "$RUN"
touch "$MARKER"
chmod 0755 "$SLURM_DIR" "$ETC"
chown slurm:slurm "$STATE" "$LOGS" "$RUN"

ensure_key "$JWT_KEY" 32 slurm:slurm 0600

NODES=$(node_names)
install_config
start_munge
if [ "$WITH_SLURMDBD" = 1 ]; then start_mariadb; start_slurmdbd; fi
start_slurmctld
start_slurmds
wait_nodes_registered log
start_slurmrestd
write_env
exit_if_drained scontrol
log "cluster '$CLUSTER' up in $SLURM_DIR, all nodes up (source $SLURM_DIR/env.sh)"
