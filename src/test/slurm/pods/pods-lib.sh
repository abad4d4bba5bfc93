# shellcheck shell=bash
# pods-lib.sh - helpers shared by run-pod.sh, exec-pod.sh and stop-pods.sh (sourced, not run). The callers set
# PODS_DIR, POD_BRIDGE and POD_SUBNET; the layout under PODS_DIR is described in run-pod.sh.

pod_die() { echo "${0##*/}: $*" >&2; exit 1; }

valid_name() { [[ $1 =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$ ]]; }

netns_of() { echo "cpod-$1"; }

# The host end of a pod's veth is named after the last octet of its IP: interface names have at most 15 characters.
veth_of() { echo "cpod${1##*.}"; }

# pod_pid POD: the host PID of the pod's PID 1, if the pod runs. A PID alone could have been reused: the process must
# also be in the pod's network namespace.
pod_pid() {
  local dir=$PODS_DIR/pods/$1 pid ns
  [ -s "$dir/pid" ] || return 1
  pid=$(cat "$dir/pid")
  [[ $pid =~ ^[0-9]+$ ]] && [ -e "/proc/$pid" ] || return 1
  ns=/run/netns/$(netns_of "$1")
  [ -e "$ns" ] && [ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = "$(stat -L -c %i "$ns")" ] || return 1
  echo "$pid"
}

pod_running() { pod_pid "$1" >/dev/null; }

# The names of the pods that have a directory, running or not.
pod_names() {
  local d
  for d in "$PODS_DIR"/pods/*/; do
    [ -f "$d/name" ] && basename "$d"
  done
  return 0
}

# allocate_ip [WANTED]: prints WANTED, or the lowest free address of POD_SUBNET; the caller holds the lock.
allocate_ip() {
  local wanted=$1 used=" " f n
  for f in "$PODS_DIR"/pods/*/ip; do
    [ -f "$f" ] && used="$used$(cat "$f") "
  done
  if [ -n "$wanted" ]; then
    { [[ $wanted =~ ^${POD_SUBNET//./\\.}\.([0-9]{1,3})$ ]] && n=${BASH_REMATCH[1]} && [ "$n" -ge 2 ] && [ "$n" -le 254 ]; } ||
      pod_die "-i $wanted is not in $POD_SUBNET.2-254"
    [[ $used == *" $wanted "* ]] && pod_die "$wanted is taken by another pod"
    echo "$wanted"; return
  fi
  for n in $(seq 2 254); do
    [[ $used == *" $POD_SUBNET.$n "* ]] || { echo "$POD_SUBNET.$n"; return; }
  done
  pod_die "no free address left in $POD_SUBNET.0/24"
}

# setup_netns POD IP: a fresh network namespace whose eth0 has IP, on a veth attached to the bridge.
setup_netns() {
  local ns veth
  ns=$(netns_of "$1") veth=$(veth_of "$2")
  ip netns del "$ns" 2>/dev/null || true
  ip link del "$veth" 2>/dev/null || true
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set dev "$veth" master "$POD_BRIDGE" up
  ip -n "$ns" addr add "$2/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via "$POD_SUBNET.1"
}

# write_hosts: PODS_DIR/net/hosts from every pod's line, replaced in one rename, so that no pod ever reads half.
write_hosts() {
  local f
  {
    echo "127.0.0.1 localhost"
    echo "::1 localhost ip6-localhost ip6-loopback"
    # The host's end of the bridge, which connections from the host come from (slurmrestd looks its clients up).
    echo "$POD_SUBNET.1 $POD_BRIDGE-host"
    for f in "$PODS_DIR"/pods/*/hosts; do
      [ -f "$f" ] && cat "$f"
    done
  } >"$PODS_DIR/net/hosts.new"
  chmod 0644 "$PODS_DIR/net/hosts.new"
  mv -f "$PODS_DIR/net/hosts.new" "$PODS_DIR/net/hosts"
}

# release_pod POD: takes back a pod's network namespace, veth, address and host names once it no longer runs
# (the caller holds the lock). Its log and exit code stay.
release_pod() {
  local dir=$PODS_DIR/pods/$1
  ip netns del "$(netns_of "$1")" 2>/dev/null || true
  if [ -f "$dir/ip" ]; then
    ip link del "$(veth_of "$(cat "$dir/ip")")" 2>/dev/null || true
  fi
  rm -f "$dir/ip" "$dir/hosts" "$dir/pid"
  [ -d "$PODS_DIR/net" ] && write_hosts
  return 0
}
