#!/bin/bash
# colocate-slurm-entrypoint ROLE [DAEMON_ARG...] - the entrypoint of colocate's Slurm image.
# ROLE is slurmctld, slurmd, slurmrestd or slurmdbd; DAEMON_ARGs are appended to the daemon's command line (-v...).
#
# It runs as root, as the container's PID 1, and:
#   1. checks the environment and the mounted files that the operator's pod template provides (see README.md);
#   2. copies the munge key to /etc/munge/munge.key (owner munge, 0400: munged refuses anything else) and starts
#      munged in the background: every Slurm daemon, and every Slurm command run in the pod, needs a local munged;
#   3. prepares the role's directories: slurmctld's StateSaveLocation (a claim that is empty and root's on first
#      start) is handed to SlurmUser; slurmd's SlurmdSpoolDir is created; slurmctld and slurmdbd get the JWT key at
#      the jwt_key= path of their AuthAltParameters, owned by SlurmUser, 0400 (they read it as SlurmUser, so the
#      Secret's root 0400 file cannot be that path; see install_jwt_key);
#   4. slurmdbd: writes slurmdbd.conf with StoragePass=$SLURMDBD_STORAGE_PASS to a private directory (SlurmUser,
#      0600, as slurmdbd demands) and points SLURM_CONF there; slurmctld with $SLURM_JOBCOMP_PASS: the same for
#      slurm.conf with JobCompPass (the other files of SLURM_CONF's directory are linked beside it);
#   5. starts the daemon in the foreground as /usr/sbin/<daemon> (Slurm keys on argv[0]: started under another
#      name, such as slurmctld-wlm, it silently drops the node lines' Gres=), logging to stderr, and stays as its
#      parent: it forwards SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 to it, reaps the orphans that job steps
#      leave to PID 1, and exits with the daemon's exit code once it ends. If munged dies first, the daemon is
#      stopped and the container fails (nothing in it can authenticate any more).
#
# Environment:
#   SLURM_CONF          slurm.conf, read-only (the ConfigMap); gres.conf, cgroup.conf, job_submit.lua beside it
#   MUNGE_KEY_FILE      the munge key (Secret, root 0400)
#   SLURM_JWT_KEY_FILE  the JWT HS256 key (Secret, root 0400); slurmctld, slurmrestd, slurmdbd (slurmrestd only
#                       passes tokens on and reads no key)
#   POD_NAME            the pod's name; slurmd runs as the Slurm node of that name (slurmd -N)
#   SLURMD_GPUS         slurmd of a GPU group: how many GPUs (nvidia.com/gpu) the node offers. Slurm drops a GPU
#                       line of gres.conf that has no File= (and drains the node), and which devices the pod has is
#                       the device plugin's choice: so they are named here, one NodeName=$POD_NAME Name=gpu
#                       File=<device> line each, in a private copy of gres.conf. Skipped when gres.conf names GPUs
#                       itself (Name=gpu or AutoDetect= lines, the user's own).
#   SLURMD_GPU_DEVICES [/dev/nvidia[0-9]*]  where the device plugin's GPUs appear (character devices)
#   SLURMDBD_STORAGE_PASS  slurmdbd: the database password
#   SLURM_JOBCOMP_PASS  slurmctld, only with JobCompType=jobcomp/mysql: that database's password
#   SLURMRESTD_LISTEN [0.0.0.0:6820]  SLURMRESTD_USER [slurmrestd]  SLURMRESTD_PLUGINS [derived, see below]
# Exit codes: the daemon's; 64 bad usage; 78 a missing or unusable setting or file (the message says which);
# 70 munged died while the daemon ran.
set -euo pipefail

ROLE=${1:-}
[ $# -gt 0 ] && shift
# DAEMON_ARGS: the caller's extra arguments, handed to the daemon.
DAEMON_ARGS=("$@")
RUNDIR=/run/colocate-slurm

log() { printf '%s colocate-slurm-entrypoint(%s): %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${ROLE:-?}" "$*" >&2; }
die() { log "error: $*"; exit 78; }

case $ROLE in
  slurmctld | slurmd | slurmrestd | slurmdbd) ;;
  *) log "usage: colocate-slurm-entrypoint slurmctld|slurmd|slurmrestd|slurmdbd [DAEMON_ARG...]"; exit 64 ;;
esac
[ "$(id -u)" = 0 ] || die "must start as root (it drops privileges per daemon), runs as uid $(id -u)"

# ------------------------------------------------------------------------------------------------ helpers
need_env() {
  local v
  for v in "$@"; do
    [ -n "${!v:-}" ] || die "environment variable $v is not set (the pod template sets it)"
  done
}

# need_file VAR: the file that $VAR names must exist and be a non-empty regular file.
need_file() {
  local f=${!1}
  [ -e "$f" ] || die "$1=$f does not exist (is its volume mounted?)"
  [ -f "$f" ] || die "$1=$f is not a regular file"
  [ -s "$f" ] || die "$1=$f is empty"
}

# conf_value FILE KEY: the value of a Key=Value line of a Slurm config file, keys case-insensitive, last one wins,
# empty if absent. Comments and Include lines are skipped.
conf_value() {
  awk -v key="$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')" '
    { sub(/#.*/, "") }
    match($0, /^[ \t]*[A-Za-z0-9_]+[ \t]*=/) {
      k = substr($0, 1, RLENGTH - 1); gsub(/[ \t]/, "", k)
      if (tolower(k) == key) { v = substr($0, RLENGTH + 1); sub(/^[ \t]+/, "", v); sub(/[ \t].*$/, "", v); found = v }
    }
    END { print found }' "$1"
}

# user_ids USER: "uid:gid" of a user that must exist in the image.
user_ids() {
  local u g
  { u=$(id -u "$1" 2>/dev/null) && g=$(id -g "$1" 2>/dev/null); } || die "user '$1' does not exist in the image"
  echo "$u:$g"
}

# Slurm's config parser ends a value at a blank (unless it is in double quotes), cuts a line at '#' and reads
# backslashes as escapes: quote and escape a password so that it arrives as given.
conf_quote() {
  local v=$1
  case $v in
    *'"'* | *$'\n'* | *$'\r'*) return 1 ;;
  esac
  v=${v//\\/\\\\}
  v=${v//#/\\#}
  printf '"%s"' "$v"
}

# private_conf_dir DIR FILE LINE: DIR gets FILE (a copy of the one beside SLURM_CONF) with LINE appended, mode 0600
# for SlurmUser, and links to every other file there; SLURM_CONF is pointed into DIR. Slurm reads gres.conf,
# job_submit.lua, slurmdbd.conf and the rest from SLURM_CONF's directory.
private_conf_dir() {
  local dir=$1 name=$2 line=$3 src f
  src=$(dirname "$SLURM_CONF")
  rm -rf "$dir"
  install -d -m 0755 "$dir"
  for f in "$src"/*; do
    [ -e "$f" ] || continue
    [ "$(basename "$f")" = "$name" ] || ln -s "$f" "$dir/$(basename "$f")"
  done
  [ -f "$src/$name" ] || die "$src/$name does not exist (the ConfigMap renders it)"
  # The file holds a password: never readable by anyone but SlurmUser, not even while it is written.
  (umask 077; { cat "$src/$name"; printf '\n%s\n' "$line"; } >"$dir/$name")
  chown "$SLURM_IDS" "$dir/$name"
  SLURM_CONF=$dir/$(basename "$SLURM_CONF")
  export SLURM_CONF
}

# name_gpus: with SLURMD_GPUS=N, slurmd's gres.conf gets a line for each of the pod's first N GPU devices (by
# number), unless gres.conf names GPUs itself. Fewer devices than N is an error: slurmd would register fewer GPUs
# than slurm.conf offers, and Slurm would drain the node.
name_gpus() {
  local want=${SLURMD_GPUS:-0} pattern=${SLURMD_GPU_DEVICES:-/dev/nvidia[0-9]*} gres f lines="" found=()
  [[ $want =~ ^[0-9]+$ ]] || die "SLURMD_GPUS=$want is not a number"
  [ "$want" -gt 0 ] || return 0
  gres=$CONF_DIR/gres.conf
  if [ -f "$gres" ] && sed 's/#.*//' "$gres" | grep -Eiq '(^|[[:space:]])(name=gpu([[:space:]]|$)|autodetect=)'; then
    log "gres.conf names the GPUs itself: leaving them to it"
    return 0
  fi
  # the pattern is a glob on purpose; sort -V puts nvidia10 after nvidia9
  while IFS= read -r f; do
    [ -c "$f" ] && found+=("$f")
  done < <(compgen -G "$pattern" | sort -V)
  [ "${#found[@]}" -ge "$want" ] || die "this worker group offers $want GPUs (nvidia.com/gpu), but the pod has" \
    "${#found[@]} GPU devices ($pattern): is the NVIDIA device plugin running on the node, with NVIDIA's" \
    "container runtime?"
  for f in "${found[@]:0:$want}"; do
    lines+="NodeName=$POD_NAME Name=gpu File=$f"$'\n'
  done
  private_conf_dir "$RUNDIR/slurmd" gres.conf "${lines%$'\n'}"
  log "named $want GPUs in gres.conf: ${found[*]:0:$want}"
}

# ------------------------------------------------------------------------------------------------ checks
need_env SLURM_CONF MUNGE_KEY_FILE
need_file SLURM_CONF
need_file MUNGE_KEY_FILE
CONF_DIR=$(dirname "$SLURM_CONF")
SLURM_USER=$(conf_value "$SLURM_CONF" SlurmUser)
SLURM_USER=${SLURM_USER:-root}
SLURM_IDS=$(user_ids "$SLURM_USER")

if [ "$ROLE" != slurmd ]; then
  need_env SLURM_JWT_KEY_FILE
  need_file SLURM_JWT_KEY_FILE
fi

# install_jwt_key CONF USER: the daemon that reads CONF verifies tokens with the jwt_key= file of its
# AuthAltParameters, which it opens as USER (its SlurmUser), after dropping root: the Secret's root 0400 file is
# unreadable then ("fatal: auth/jwt: Could not load key file"). So the key is installed at that path for USER,
# 0400, unless the path is the Secret's own file: then it must already be readable for USER.
install_jwt_key() {
  local conf=$1 user=$2 ids alt key="" item
  alt=$(conf_value "$conf" AuthAltParameters)
  for item in ${alt//,/ }; do
    [[ $item == jwt_key=* ]] && key=${item#jwt_key=}
  done
  if [ -z "$key" ]; then
    log "warning: $conf has no AuthAltParameters=jwt_key=...: JWT authentication (slurmrestd, the copilot) will fail"
    return 0
  fi
  ids=$(user_ids "$user")
  if [ "$(readlink -f "$key")" = "$(readlink -f "$SLURM_JWT_KEY_FILE")" ]; then
    setpriv --reuid="${ids%:*}" --regid="${ids#*:}" --init-groups test -r "$key" ||
      die "$conf names the Secret's file itself (jwt_key=$key), which $user cannot read (it is root's, 0400," \
        "and Slurm reads it as $user): set jwt_key= to a path outside the Secret, such as" \
        "/run/colocate-slurm/jwt_hs256.key; this entrypoint installs SLURM_JWT_KEY_FILE there for $user"
    return 0
  fi
  case $key in
    /*) ;;
    *) die "$conf: jwt_key=$key is not an absolute path" ;;
  esac
  install -d -m 0755 "$(dirname "$key")"
  install -o "${ids%:*}" -g "${ids#*:}" -m 0400 "$SLURM_JWT_KEY_FILE" "$key"
  log "installed the JWT key at $key for $user"
}

# ------------------------------------------------------------------------------------------------ munged
MUNGED_PID=""
start_munged() {
  local ids i
  ids=$(user_ids munge)
  install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
  install -d -o munge -g munge -m 0755 /run/munge
  # The Secret's file is root's and may be a symlink into ..data: munged wants a regular file of its own user.
  install -o munge -g munge -m 0400 "$MUNGE_KEY_FILE" /etc/munge/munge.key
  setpriv --reuid="${ids%:*}" --regid="${ids#*:}" --init-groups /usr/sbin/munged --foreground </dev/null &
  MUNGED_PID=$!
  for i in $(seq 100); do
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
      log "munged is up (pid $MUNGED_PID)"
      return 0
    fi
    kill -0 "$MUNGED_PID" 2>/dev/null || { wait "$MUNGED_PID" || true; die "munged exited at start (see its messages above, or /var/log/munge/munged.log)"; }
    [ "$i" = 100 ] || sleep 0.1
  done
  die "munged did not answer within 10 s"
}

# ------------------------------------------------------------------------------------------------ roles
CMD=()
case $ROLE in
  slurmctld)
    state=$(conf_value "$SLURM_CONF" StateSaveLocation)
    state=${state:-/var/spool/slurmctld}
    mkdir -p "$state"
    # The claim is root's and empty on first start; later the files are slurmctld's, unless the claim came back
    # with other owners (a restore, another uid in another image).
    if [ "$(stat -c %u:%g "$state")" != "$SLURM_IDS" ] || [ -n "$(find "$state" \( ! -uid "${SLURM_IDS%:*}" -o ! -gid "${SLURM_IDS#*:}" \) -print -quit)" ]; then
      log "giving $state to $SLURM_USER"
      chown -R "$SLURM_IDS" "$state"
    fi
    chmod 0750 "$state"
    if [ "$(conf_value "$SLURM_CONF" JobCompType)" = jobcomp/mysql ]; then
      need_env SLURM_JOBCOMP_PASS
      pass=$(conf_quote "$SLURM_JOBCOMP_PASS") || die "SLURM_JOBCOMP_PASS contains a double quote or a line break, which slurm.conf cannot hold"
      [ -z "$(conf_value "$SLURM_CONF" JobCompPass)" ] || die "slurm.conf sets JobCompPass itself; the password belongs in the Secret"
      private_conf_dir "$RUNDIR/slurmctld" "$(basename "$SLURM_CONF")" "JobCompPass=$pass"
    fi
    install_jwt_key "$SLURM_CONF" "$SLURM_USER"
    CMD=(/usr/sbin/slurmctld -D)
    ;;
  slurmd)
    need_env POD_NAME
    grep -Eiq "^[[:space:]]*NodeName=" "$SLURM_CONF" || die "slurm.conf has no NodeName lines"
    spool=$(conf_value "$SLURM_CONF" SlurmdSpoolDir)
    spool=${spool:-/var/spool/slurmd}
    spool=${spool//%n/$POD_NAME}
    spool=${spool//%h/$(hostname -s)}
    install -d -m 0755 "$spool"
    name_gpus
    CMD=(/usr/sbin/slurmd -D -N "$POD_NAME")
    ;;
  slurmrestd)
    restd_user=${SLURMRESTD_USER:-slurmrestd}
    # slurmrestd refuses to run as root or as SlurmUser: it binds its socket as root, then becomes this user.
    { [ "$restd_user" != root ] && [ "$restd_user" != "$SLURM_USER" ]; } || die "SLURMRESTD_USER must be neither root nor SlurmUser ($SLURM_USER)"
    if ! id "$restd_user" >/dev/null 2>&1; then
      log "creating system user $restd_user (the image should have it)"
      useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$restd_user" ||
        die "user $restd_user does not exist and cannot be created"
    fi
    plugins=${SLURMRESTD_PLUGINS:-}
    if [ -z "$plugins" ]; then
      # The openapi plugins of the installed Slurm: v0.0.3x files on 22.05, openapi_slurmctld on 23.11+. Those for
      # slurmdbd (dbv0.0.x, slurmdbd) fatal() at start when there is no slurmdbd, so they are left out then.
      dbd=0
      [ "$(conf_value "$SLURM_CONF" AccountingStorageType)" = accounting_storage/slurmdbd ] && dbd=1
      plugin_dir=$(conf_value "$SLURM_CONF" PluginDir)
      for f in ${plugin_dir//:/ } /usr/lib/*/slurm-wlm /usr/lib/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
        [ -d "$f" ] && compgen -G "$f/openapi_*.so" >/dev/null && { plugin_dir=$f; break; }
      done
      for f in "$plugin_dir"/openapi_*.so; do
        [ -e "$f" ] || continue
        p=${f##*/openapi_}; p=${p%.so}
        [[ $p =~ ^(db)?v[0-9] ]] && p=${p//_/.}
        [ "$dbd" = 0 ] && [[ $p == dbv* || $p == slurmdbd ]] && continue
        plugins=${plugins:+$plugins,}openapi/$p
      done
      [ -n "$plugins" ] || die "no openapi plugins found (looked in $plugin_dir); set SLURMRESTD_PLUGINS"
    fi
    # SLURM_JWT=daemon: slurmrestd then authenticates to slurmctld with each client's own token.
    export SLURM_JWT=daemon
    CMD=(/usr/sbin/slurmrestd -u "$restd_user" -a rest_auth/jwt -s "$plugins" "${SLURMRESTD_LISTEN:-0.0.0.0:6820}")
    ;;
  slurmdbd)
    need_env SLURMDBD_STORAGE_PASS
    pass=$(conf_quote "$SLURMDBD_STORAGE_PASS") || die "SLURMDBD_STORAGE_PASS contains a double quote or a line break, which slurmdbd.conf cannot hold"
    [ -f "$CONF_DIR/slurmdbd.conf" ] || die "$CONF_DIR/slurmdbd.conf does not exist (the ConfigMap renders it with spec.accounting)"
    [ -z "$(conf_value "$CONF_DIR/slurmdbd.conf" StoragePass)" ] || die "slurmdbd.conf sets StoragePass itself; the password belongs in the Secret"
    dbd_user=$(conf_value "$CONF_DIR/slurmdbd.conf" SlurmUser)
    SLURM_IDS=$(user_ids "${dbd_user:-root}")
    install_jwt_key "$CONF_DIR/slurmdbd.conf" "${dbd_user:-root}"
    private_conf_dir "$RUNDIR/slurmdbd" slurmdbd.conf "StoragePass=$pass"
    CMD=(/usr/sbin/slurmdbd -D)
    ;;
esac
[ -x "${CMD[0]}" ] || die "${CMD[0]} is not installed in this image"

start_munged

# ------------------------------------------------------------------------------------------------ supervise
DAEMON_PID=""
# shellcheck disable=SC2317  # called by the traps below
forward() {
  [ -n "$DAEMON_PID" ] || return 0
  log "forwarding SIG$1 to ${CMD[0]##*/} (pid $DAEMON_PID)"
  kill -s "$1" "$DAEMON_PID" 2>/dev/null || true
}
for sig in TERM INT HUP USR1 USR2; do
  # shellcheck disable=SC2064  # the signal's name is fixed now, on purpose
  trap "forward $sig" "$sig"
done

log "starting: ${CMD[*]} ${DAEMON_ARGS[*]}"
"${CMD[@]}" "${DAEMON_ARGS[@]}" </dev/null &
DAEMON_PID=$!

# wait -n returns when either child ends, or early (status > 128, nothing in `ended`) when a trapped signal came in.
rc=0
while :; do
  ended=""
  wait -n -p ended "$DAEMON_PID" "$MUNGED_PID" && rc=0 || rc=$?
  [ -n "${ended:-}" ] && break
done
if [ "$ended" = "$MUNGED_PID" ]; then
  log "error: munged exited ($rc) while ${CMD[0]##*/} runs: stopping it"
  kill -TERM "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" || true
  exit 70
fi
log "${CMD[0]##*/} exited with code $rc"
kill -TERM "$MUNGED_PID" 2>/dev/null || true
wait "$MUNGED_PID" 2>/dev/null || true
exit "$rc"
