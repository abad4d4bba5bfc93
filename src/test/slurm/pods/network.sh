#!/bin/bash
# network.sh - the pod network of the test kubelet (run-pod.sh): one Linux bridge that every pod's veth joins.
#
#   network.sh up     create the bridge with the host's address on it, if it is not there yet (idempotent)
#   network.sh down   delete the bridge, if it is there (run-pod.sh's pods must be stopped first: stop-pods.sh)
#   network.sh show   print the bridge and the veths attached to it
#
# Environment (defaults in brackets):
#   POD_BRIDGE [colocate-pods]   the bridge's name (at most 15 characters)
#   POD_SUBNET [10.213.0]        the /24 of the pods, as its first three octets; the host is .1 on the bridge,
#                                pods get .2 to .254
# Pods talk to each other and to the host over the bridge; nothing is routed or NATed beyond it, so the pods
# cannot reach anything outside this host, and nothing outside can reach them. Needs root.
set -euo pipefail

POD_BRIDGE=${POD_BRIDGE:-colocate-pods}
POD_SUBNET=${POD_SUBNET:-10.213.0}

die() { echo "network.sh: $*" >&2; exit 1; }

[[ $POD_BRIDGE =~ ^[A-Za-z0-9_.-]{1,15}$ ]] || die "POD_BRIDGE must be 1-15 characters of [A-Za-z0-9_.-], got '$POD_BRIDGE'"
[[ $POD_SUBNET =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "POD_SUBNET must be three octets such as 10.213.0, got '$POD_SUBNET'"

bridge_exists() { ip link show dev "$POD_BRIDGE" >/dev/null 2>&1; }

up() {
  [ "$(id -u)" = 0 ] || die "run as root"
  if ! bridge_exists; then
    # Two callers may race here (pods started in parallel): losing the race to create it is fine.
    ip link add name "$POD_BRIDGE" type bridge 2>/dev/null || bridge_exists || die "cannot create bridge $POD_BRIDGE"
  fi
  [ -d "/sys/class/net/$POD_BRIDGE/bridge" ] || die "$POD_BRIDGE exists but is not a bridge"
  # No STP and no forwarding delay: a pod's port must pass traffic the moment its veth is attached.
  ip link set dev "$POD_BRIDGE" type bridge stp_state 0 forward_delay 0 2>/dev/null || true
  if ! ip -4 addr show dev "$POD_BRIDGE" | grep -qw "inet $POD_SUBNET.1/24"; then
    ip addr add "$POD_SUBNET.1/24" dev "$POD_BRIDGE" 2>/dev/null ||
      ip -4 addr show dev "$POD_BRIDGE" | grep -qw "inet $POD_SUBNET.1/24" || die "cannot put $POD_SUBNET.1/24 on $POD_BRIDGE"
  fi
  ip link set dev "$POD_BRIDGE" up
}

down() {
  [ "$(id -u)" = 0 ] || die "run as root"
  bridge_exists || return 0
  [ -d "/sys/class/net/$POD_BRIDGE/bridge" ] || die "$POD_BRIDGE is not a bridge: not deleting it"
  ip link del dev "$POD_BRIDGE"
}

show() {
  if bridge_exists; then
    ip -br addr show dev "$POD_BRIDGE"
    ip -br link show master "$POD_BRIDGE"
  else
    echo "no bridge $POD_BRIDGE"
  fi
}

case ${1:-} in
  up) up ;;
  down) down ;;
  show) show ;;
  *) die "usage: network.sh up|down|show" ;;
esac
