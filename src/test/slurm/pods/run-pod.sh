#!/bin/bash
# run-pod.sh - a test-side "kubelet": runs one pod of colocate's operator on this host the way Kubernetes runs it,
# so that the Slurm image's entrypoint and the rendered configuration can be tried without a cluster.
#
# Usage: run-pod.sh [OPTIONS] POD_NAME -- COMMAND [ARG...]
#   -s SERVICE        the pod's subdomain (a StatefulSet's serviceName): adds the host names POD.SERVICE and
#                     POD.SERVICE.POD_NAMESPACE.svc.CLUSTER_DOMAIN, as cluster DNS would resolve them
#   -H HOSTNAME       the pod's host name, if not POD_NAME (a pod template's spec.hostname)
#   -a NAME           one more host name for the pod's address (e.g. a Service that selects it); repeatable
#   -v SRC:DST[:ro]   bind-mount the host's file or directory SRC at DST in the pod (a volume); repeatable
#   -f SRC:DST        copy the host's file SRC into the pod's image layer at DST, mode kept (e.g. an entrypoint
#                     that the image would carry); repeatable
#   -e FILE           environment file: KEY=VALUE lines, taken literally (no quotes, no expansion); blank lines and
#                     lines starting with # are skipped
#   -E KEY=VALUE      one environment variable; repeatable, after -e's. Nothing like the downward API is implied:
#                     pass POD_NAME=... yourself if the command wants it. PATH, HOME=/root and HOSTNAME are preset.
#   -i ADDR           the pod's IP address (default: the lowest free one in POD_SUBNET)
#   -w                stay in the foreground until the pod ends and exit with its exit code (default: start the pod
#                     in the background, print "POD_NAME IP PID" once its command runs, and return)
#
# What the pod gets, as with a container runtime:
#   - its own network namespace (netns cpod-POD_NAME), with eth0 on a veth whose host end (cpodN, N = the last
#     octet of the IP) is on the bridge of network.sh (set up here if missing);
#   - its own mount, UTS, IPC and PID namespaces: host name = POD_NAME (or -H), COMMAND runs as PID 1; when PID 1
#     ends the kernel ends every other process of the pod;
#   - a root file system of its own: a copy-on-write overlay (upper layer in memory) over POD_IMAGE, so that what
#     the command writes to /etc, /var or /usr stays in the pod and is gone when it ends; fresh /proc and /sys,
#     the host's /dev, private tmpfs at each POD_TMPFS path; then the volumes (-v), mounted at their paths;
#   - cgroups read-only (see POD_CGROUP); an /etc/resolv.conf without a reachable name server;
#   - an /etc/hosts that lists every running pod of PODS_DIR (POD, POD.SERVICE, POD.SERVICE.NS.svc.DOMAIN and the
#     -a names, with its IP). It stands in for cluster DNS: /etc/hosts is a symbolic link to PODS_DIR/net/hosts,
#     which is bind-mounted read-only at /etc/colocate-pod-net and replaced atomically whenever a pod starts or
#     stops, so every pod sees pods started after it.
# Not modelled: resource limits, probes, restarts (a pod that ends stays ended; run it again), Services' virtual IPs.
#
# Environment (defaults in brackets):
#   PODS_DIR [/tmp/colocate-pods]  state: pods/POD/{log,pid,ip,...} and net/hosts; logs stay after a pod ends
#   POD_IMAGE [/]                  the image: a root file system directory (/ = this host's own system, which has
#                                  the Slurm 22.05 packages; e.g. /var/tmp/colocate-slurm-24.11-root for 24.11)
#   POD_TMPFS [/run /tmp /dev/shm] paths that get a private, empty tmpfs
#   POD_NAMESPACE [default]  CLUSTER_DOMAIN [cluster.local]   for the long host names
#   POD_BRIDGE [colocate-pods]  POD_SUBNET [10.213.0]         as in network.sh
#   POD_CGROUP [host]              host = the host's /sys/fs/cgroup tree, read-only (what a container gets on a
#                                  cgroup v1 node); v2 = a cgroup namespace with a read-only cgroup2 mount (what a
#                                  container gets on a cgroup v2 node); none = no cgroup file system
#   POD_START_TIMEOUT [10]         seconds to wait for the pod's command to start (background mode)
# Companions: exec-pod.sh runs a command inside a running pod; stop-pods.sh stops pods and tears the network down.
# Needs root, util-linux (unshare, nsenter, flock) and iproute2.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
PODS_DIR=${PODS_DIR:-/tmp/colocate-pods}
POD_IMAGE=${POD_IMAGE:-/}
POD_TMPFS=${POD_TMPFS:-/run /tmp /dev/shm}
POD_NAMESPACE=${POD_NAMESPACE:-default}
CLUSTER_DOMAIN=${CLUSTER_DOMAIN:-cluster.local}
POD_BRIDGE=${POD_BRIDGE:-colocate-pods}
POD_SUBNET=${POD_SUBNET:-10.213.0}
POD_START_TIMEOUT=${POD_START_TIMEOUT:-10}
POD_CGROUP=${POD_CGROUP:-host}
export POD_BRIDGE POD_SUBNET

# shellcheck source=SCRIPTDIR/pods-lib.sh
. "$HERE/pods-lib.sh"

# ------------------------------------------------------------------------------------------ inside the namespaces
# run-pod.sh --inner PODDIR: runs as PID 1 of the pod's new PID namespace, in its network, mount, UTS and IPC
# namespaces, still seeing the host's file system; builds the pod's root and becomes the pod's command.
inner() {
  local dir=$1 name host root layer hostpid p src dst mode
  name=$(cat "$dir/name")
  host=$(cat "$dir/hostname")
  # This /proc is still the host's, so it tells our PID as the host sees it: stop-pods.sh signals that PID.
  read -r hostpid _ </proc/self/stat
  hostname "$host"
  root=$dir/root layer=$dir/layer
  mkdir -p "$root" "$layer"
  # The upper layer lives on a tmpfs: overlayfs refuses an upper directory inside its lower one (POD_IMAGE=/), and
  # the pod's writes are meant to vanish with it anyway.
  mount -t tmpfs -o mode=0700 pod-layer "$layer"
  mkdir "$layer/upper" "$layer/work"
  mount -t overlay overlay -o "lowerdir=$POD_IMAGE,upperdir=$layer/upper,workdir=$layer/work" "$root" ||
    pod_die "cannot mount the overlay root over POD_IMAGE=$POD_IMAGE"
  mkdir -p "$root/proc" "$root/sys" "$root/dev"
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  # cgroups read-only, as a container runtime gives them to an unprivileged container: Slurm 22.05's slurmd
  # initialises its cgroup plugin even with proctrack/linuxproc and task/none, and fails without a cgroup mount.
  case $POD_CGROUP in
    host)
      if mountpoint -q /sys/fs/cgroup; then
        mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
        findmnt -R -n -r -o TARGET "$root/sys/fs/cgroup" | while read -r m; do mount -o remount,bind,ro "$m"; done
      fi ;;
    v2) mount -t cgroup2 -o ro,nosuid,nodev,noexec cgroup2 "$root/sys/fs/cgroup" ;;
  esac
  mount --rbind /dev "$root/dev"
  for p in $POD_TMPFS; do
    safe_target "$root" "$p"
    mkdir -p "$root$p"
    if [ "$p" = /run ]; then mount -t tmpfs -o mode=0755 pod-run "$root$p"
    else mount -t tmpfs -o mode=1777 pod-tmp "$root$p"; fi
  done
  # Debian's /var/run and /var/lock point into /run, which is fresh: give them their usual place.
  mkdir -p "$root/run/lock"
  while IFS=$'\t' read -r src dst mode; do
    safe_target "$root" "$dst"
    if [ -d "$src" ]; then mkdir -p "$root$dst"
    else mkdir -p "$(dirname "$root$dst")"; [ -e "$root$dst" ] || : >"$root$dst"; fi
    mount --bind "$src" "$root$dst"
    [ "$mode" = ro ] && mount -o remount,bind,ro "$root$dst"
  done <"$dir/volumes"
  while IFS=$'\t' read -r src dst; do
    safe_target "$root" "$dst"
    mkdir -p "$(dirname "$root$dst")"
    cp --preserve=mode "$src" "$root$dst"
  done <"$dir/files"
  mkdir -p "$root/etc/colocate-pod-net"
  mount --bind "$PODS_DIR/net" "$root/etc/colocate-pod-net"
  mount -o remount,bind,ro "$root/etc/colocate-pod-net"
  ln -sfn colocate-pod-net/hosts "$root/etc/hosts"
  echo "$host" >"$root/etc/hostname"
  # No DNS server is reachable from the pod network: a name missing from /etc/hosts must fail at once, as an
  # unknown name fails in cluster DNS, not after the resolver's time-outs.
  printf '# written by run-pod.sh: the pods have no DNS; their names are in /etc/hosts\nnameserver 127.0.0.1\n' >"$root/etc/resolv.conf.pod"
  mv -f "$root/etc/resolv.conf.pod" "$root/etc/resolv.conf"
  local -a env=() cmd=()
  mapfile -t env <"$dir/env"
  mapfile -d '' -t cmd <"$dir/cmd"
  echo "$hostpid" >"$dir/pid.new" && mv "$dir/pid.new" "$dir/pid"
  cd /
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root HOSTNAME="$host" "${env[@]}" "${cmd[@]}"
}

# A mount target must not pass through a symbolic link: resolved outside the chroot, it would point into the host.
safe_target() {
  local root=$1 path=$2 part sofar=""
  [[ $path == /* && $path != */../* && $path != */.. && $path != */./* ]] || pod_die "bad path in the pod: '$path'"
  local IFS=/
  for part in $path; do
    [ -n "$part" ] || continue
    sofar=$sofar/$part
    [ -L "$root$sofar" ] && pod_die "$path: $sofar is a symbolic link in the image; give the real path"
  done
  return 0
}

# ------------------------------------------------------------------------------------------ the shim
# run-pod.sh --shim PODDIR: the host-side process that holds the pod: enters its netns, creates the other
# namespaces, waits for PID 1 to end and writes its exit code to PODDIR/exit-code.
shim() {
  local dir=$1 name rc=0 cgroupns=""
  # With its own cgroup2 mount the pod gets its own cgroup namespace too, as on a cgroup v2 node.
  [ "$POD_CGROUP" = v2 ] && cgroupns=--cgroup
  name=$(cat "$dir/name")
  nsenter --net="/run/netns/$(netns_of "$name")" -- \
    unshare --mount --uts --ipc --pid --fork --propagation private $cgroupns -- "$SELF" --inner "$dir" || rc=$?
  echo "$rc" >"$dir/exit-code"
  echo "run-pod.sh: pod $name ended with exit code $rc ($(date -Is))"
  return "$rc"
}

# ------------------------------------------------------------------------------------------ starting a pod
usage() { sed -n '2,/^set -euo/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

start() {
  local service="" ip="" wait=0 envfile="" host="" opt
  local -a aliases=() volumes=() files=() extra=()
  while getopts "s:H:a:v:f:e:E:i:wh" opt; do
    case $opt in
      H) host=$OPTARG ;;
      s) service=$OPTARG ;;
      a) aliases+=("$OPTARG") ;;
      v) volumes+=("$OPTARG") ;;
      f) files+=("$OPTARG") ;;
      e) envfile=$OPTARG ;;
      E) extra+=("$OPTARG") ;;
      i) ip=$OPTARG ;;
      w) wait=1 ;;
      *) usage ;;
    esac
  done
  shift $((OPTIND - 1))
  { [ $# -ge 3 ] && [ "$2" = -- ]; } || usage
  local name=$1; shift 2
  [ "$(id -u)" = 0 ] || pod_die "run as root"
  valid_name "$name" || pod_die "POD_NAME must be a DNS label (lower case [a-z0-9-], at most 63), got '$name'"
  [ -z "$service" ] || valid_name "$service" || pod_die "-s SERVICE must be a DNS label, got '$service'"
  host=${host:-$name}
  valid_name "$host" || pod_die "-H HOSTNAME must be a DNS label, got '$host'"
  { [ -d "$POD_IMAGE" ] && [ -x "$POD_IMAGE/usr/bin/env" ]; } || pod_die "POD_IMAGE=$POD_IMAGE is no root file system"
  [[ $POD_START_TIMEOUT =~ ^[0-9]+$ ]] || pod_die "POD_START_TIMEOUT must be a number of seconds"
  [[ $POD_CGROUP =~ ^(host|v2|none)$ ]] || pod_die "POD_CGROUP must be host, v2 or none, got '$POD_CGROUP'"

  local dir=$PODS_DIR/pods/$name v src dst mode rest line
  mkdir -p "$PODS_DIR/pods" "$PODS_DIR/net"
  exec 9>"$PODS_DIR/lock"
  flock 9
  if pod_running "$name"; then pod_die "pod $name is already running (pid $(cat "$dir/pid"))"; fi
  release_pod "$name"   # what an earlier run of this name left (its log is kept, with a separator)
  mkdir -p "$dir"
  echo "$name" >"$dir/name"
  echo "$host" >"$dir/hostname"

  : >"$dir/volumes"
  for v in "${volumes[@]}"; do
    IFS=: read -r src dst mode rest <<<"$v"
    { [ -n "$src" ] && [ -n "$dst" ] && [ -z "$rest" ] && [[ ${mode:-rw} =~ ^(ro|rw)$ ]]; } || pod_die "bad -v '$v': want SRC:DST[:ro]"
    [ -e "$src" ] || pod_die "volume source $src does not exist"
    printf '%s\t%s\t%s\n' "$(readlink -f "$src")" "$dst" "${mode:-rw}" >>"$dir/volumes"
  done
  : >"$dir/files"
  for v in "${files[@]}"; do
    IFS=: read -r src dst rest <<<"$v"
    { [ -n "$src" ] && [ -n "$dst" ] && [ -z "$rest" ]; } || pod_die "bad -f '$v': want SRC:DST"
    [ -f "$src" ] || pod_die "file $src does not exist"
    printf '%s\t%s\n' "$(readlink -f "$src")" "$dst" >>"$dir/files"
  done
  : >"$dir/env"
  if [ -n "$envfile" ]; then
    [ -f "$envfile" ] || pod_die "env file $envfile does not exist"
    while IFS= read -r line || [ -n "$line" ]; do
      [[ -z $line || $line == \#* ]] && continue
      [[ $line =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || pod_die "$envfile: not KEY=VALUE: '$line'"
      printf '%s\n' "$line" >>"$dir/env"
    done <"$envfile"
  fi
  for v in "${extra[@]}"; do
    [[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*= && $v != *$'\n'* ]] || pod_die "bad -E '$v': want KEY=VALUE"
    printf '%s\n' "$v" >>"$dir/env"
  done
  printf '%s\0' "$@" >"$dir/cmd"

  "$HERE/network.sh" up
  ip=$(allocate_ip "$ip")
  setup_netns "$name" "$ip"
  echo "$ip" >"$dir/ip"
  local names=$name
  [ "$host" != "$name" ] && names="$names $host"
  [ -n "$service" ] && names="$names $name.$service $name.$service.$POD_NAMESPACE.svc.$CLUSTER_DOMAIN"
  [ ${#aliases[@]} -gt 0 ] && names="$names ${aliases[*]}"
  echo "$ip $names" >"$dir/hosts"
  write_hosts
  rm -f "$dir/pid" "$dir/exit-code"
  flock -u 9
  exec 9>&-

  echo "run-pod.sh: starting pod $name at $ip ($(date -Is)): $*" >>"$dir/log"
  if [ "$wait" = 1 ]; then
    local rc=0
    shim "$dir" 2>&1 | tee -a "$dir/log" || rc=${PIPESTATUS[0]}
    return "$rc"
  fi
  setsid "$SELF" --shim "$dir" </dev/null >>"$dir/log" 2>&1 &
  local deadline=$((SECONDS + POD_START_TIMEOUT))
  while [ ! -s "$dir/pid" ]; do
    if [ -e "$dir/exit-code" ] || [ $SECONDS -ge $deadline ]; then
      tail -n 20 "$dir/log" >&2
      pod_die "pod $name did not start (log: $dir/log)"
    fi
    sleep 0.05
  done
  echo "$name $ip $(cat "$dir/pid")"
}

case ${1:-} in
  --inner) inner "$2" ;;
  --shim) shim "$2" ;;
  *) start "$@" ;;
esac
