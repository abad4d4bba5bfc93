#!/bin/bash
# up.sh - bring up a real Kubernetes control plane on loopback for colocate's tests and sandbox: etcd,
# kube-apiserver, kube-controller-manager, kube-proxy, kube-scheduler (the default scheduler) and kwok, built by
# build.sh from the Go module proxy. Everything lives under KUBE_DIR, except kube-proxy's nftables rules, which are the
# host's (down.sh deletes them). Source $KUBE_DIR/env.sh afterwards.
#
# - Its own CA, serving certificate, client certificates and ServiceAccount signing key (pki/), made once and kept.
# - kube-apiserver with --authorization-mode=Node,RBAC and the admission plugins NodeRestriction and PodSecurity
#   (enforced per namespace by its pod-security.kubernetes.io labels, as on any cluster).
# - kube-controller-manager with a credential per controller (--use-service-account-credentials, as kubeadm runs
#   it): Deployments, ReplicaSets, StatefulSets, garbage collection, ServiceAccount tokens, node lifecycle, and its
#   host-path provisioner behind the default StorageClass "standard", so that claims bind.
# - kube-proxy in nftables mode (it needs root and the nft command; Debian's nftables package is installed if nft is
#   missing) makes Service ClusterIPs route on this host: a connection to CLUSTER-IP:PORT, from the host or from a
#   pod's network namespace, is DNATed to one of the ready endpoints of the Service's EndpointSlices. Endpoints must
#   be routable addresses (the API server refuses 127.0.0.0/8): the host's own address, or a pod's. Its rules are the
#   host's tables "ip kube-proxy" and "ip6 kube-proxy", so one kube-proxy per host: up.sh refuses (exit 5) while
#   another one (another KUBE_DIR's) runs. It acts for the Node KUBE_PROXY_NODE, which need not exist: without it
#   kube-proxy waits 30 s for it at every start, and its /healthz stays 503, so up.sh checks /livez and its first sync.
# - kwok stands in for the kubelets: it keeps every Node annotated kwok.x-k8s.io/node=fake Ready and moves the pods
#   bound to such nodes to Running, with no container runtime. Nodes without that annotation are left alone (the
#   stand-in kubelet of colocate's tests runs their pods as processes).
#
# Environment (defaults in brackets):
#   KUBE_DIR [/tmp/colocate-kube]   pki/ etcd/ log/ run/ *.kubeconfig env.sh
#   ETCD_PORT [22379]  ETCD_PEER_PORT [22380]  APISERVER_PORT [16443]  CONTROLLER_MANAGER_PORT [20257]
#   SCHEDULER_PORT [20259]  KWOK_PORT [20247]
#   KUBE_PROXY_HEALTHZ_PORT [20256]  KUBE_PROXY_METRICS_PORT [20249]   loopback ports
#   SERVICE_CIDR [10.96.0.0/16]      Service ClusterIPs
#   SCHEDULER [1]                    0 = no default kube-scheduler (a test runs its own)
#   KWOK [1]                         0 = no kwok
#   KUBE_PROXY [1]                   0 = no kube-proxy (ClusterIPs do not route; nothing outside KUBE_DIR is touched)
#   KUBE_PROXY_NODE [colocate-kube-proxy]   the Node name kube-proxy acts for (--hostname-override)
#   KUBE_PROXY_NODE_IP               its node IP (--bind-address); unset = this host's primary IPv4 address
#   SKIP_APT [0]                     1 = never run apt-get (a missing nft is then an error)
#   UP_TIMEOUT [60]                  seconds to wait for each daemon before failing
#   KUBE_BIN                         the binaries' directory; unset = what build.sh builds or has cached
#
# Writes $KUBE_DIR/env.sh (KEY="value" exports): KUBE_DIR KUBE_BIN KUBECONFIG (the admin's) KUBE_API_URL KUBE_CA
# PATH (KUBE_BIN first, for kubectl).
#
# Idempotent: a daemon whose PID file names a live process is left alone. If its command line would now differ (another
# port, say), up.sh refuses with exit code 3 and shows the difference: run down.sh first.
# Exit codes: 0 every daemon up and healthy; 1 something failed to start or come up within UP_TIMEOUT (its log's tail
# is printed); 2 the build failed; 3 a running daemon's configuration differs; 5 a port is taken by another process,
# or another kube-proxy runs on this host.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=kube-up
. "$HERE/lib.sh"

SCHEDULER=${SCHEDULER:-1}
KWOK=${KWOK:-1}
KUBE_PROXY=${KUBE_PROXY:-1}
KUBE_PROXY_NODE=${KUBE_PROXY_NODE:-colocate-kube-proxy}
SKIP_APT=${SKIP_APT:-0}
UP_TIMEOUT=${UP_TIMEOUT:-60}
require_numbers ETCD_PORT ETCD_PEER_PORT APISERVER_PORT CONTROLLER_MANAGER_PORT SCHEDULER_PORT KWOK_PORT \
  KUBE_PROXY_HEALTHZ_PORT KUBE_PROXY_METRICS_PORT UP_TIMEOUT
[[ $SCHEDULER =~ ^[01]$ ]] || die "SCHEDULER must be 0 or 1, got '$SCHEDULER'"
[[ $KWOK =~ ^[01]$ ]] || die "KWOK must be 0 or 1, got '$KWOK'"
[[ $KUBE_PROXY =~ ^[01]$ ]] || die "KUBE_PROXY must be 0 or 1, got '$KUBE_PROXY'"
[[ $KUBE_PROXY_NODE =~ ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$ ]] ||
  die "KUBE_PROXY_NODE must be a Node name, got '$KUBE_PROXY_NODE'"
[[ $KUBE_DIR =~ ^/[A-Za-z0-9._/-]+$ ]] || die "KUBE_DIR must be an absolute path of [A-Za-z0-9._/-], got '$KUBE_DIR'"
[[ $SERVICE_CIDR =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/[0-9]+$ ]] || die "SERVICE_CIDR must be an IPv4 CIDR, got '$SERVICE_CIDR'"

if [ -z "${KUBE_BIN:-}" ]; then
  KUBE_BIN=$(bash "$HERE/build.sh" | tail -n 1) || { err "build.sh failed (its output is above)"; exit 2; }
fi
for b in "${DAEMONS[@]}" kubectl; do [ -x "$KUBE_BIN/$b" ] || { err "$KUBE_BIN/$b is missing: run build.sh"; exit 2; }; done

# ------------------------------------------------------------------------------------------------ kube-proxy's needs
# nft, which kube-proxy's nftables mode runs for every change of its rules: from Debian's nftables package.
ensure_nft() {
  nft_on_path && return 0
  [ "$SKIP_APT" = 1 ] &&
    die "kube-proxy needs the nft command: install Debian's nftables package (SKIP_APT=1), or set KUBE_PROXY=0"
  command -v apt-get >/dev/null ||
    die "kube-proxy needs the nft command, and there is no apt-get to install nftables with; set KUBE_PROXY=0"
  log "installing nftables (the nft command, for kube-proxy)"
  local aptlog; aptlog=$(mktemp)
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nftables; } \
      >"$aptlog" 2>&1; then
    tail -n 30 "$aptlog" >&2
    die "apt-get could not install nftables (full log: $aptlog); install it by hand, or set KUBE_PROXY=0"
  fi
  rm -f "$aptlog"
  nft_on_path || die "the nftables package is installed, but there is no nft on PATH ($PATH) nor in /usr/sbin"
  log "nftables installed"
}

# The node IP kube-proxy assumes (--bind-address): without one it assumes 127.0.0.1 and opens NodePorts on every
# address. This host's primary IPv4 address: the source of its default route (no packet is sent).
host_ip() {
  local ip
  ip=$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -n 1)
  [ -n "$ip" ] || ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
  echo "${ip:-127.0.0.1}"
}

if [ "$KUBE_PROXY" = 1 ]; then
  [ "$(id -u)" = 0 ] || die "kube-proxy changes the host's nftables rules, so it needs root; or set KUBE_PROXY=0"
  ensure_nft
  KUBE_PROXY_NODE_IP=${KUBE_PROXY_NODE_IP:-$(host_ip)}
  [[ $KUBE_PROXY_NODE_IP =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    die "KUBE_PROXY_NODE_IP must be an IPv4 address, got '$KUBE_PROXY_NODE_IP'"
  others=$(other_kube_proxies)
  if [ -n "$others" ]; then
    err "another kube-proxy runs on this host; its nftables tables (${KUBE_PROXY_TABLES[*]}) would be ours too:"
    err_more "$others"
    err_more "stop it (down.sh with its KUBE_DIR), or set KUBE_PROXY=0"
    exit 5
  fi
fi

mkdir -p "$KUBE_DIR" "$LOGS" "$RUN" "$ETCD_DATA"
touch "$MARKER"
chmod 700 "$ETCD_DATA"
make_pki
for c in admin controller-manager scheduler kube-proxy kwok; do kubeconfig "$c"; done

# ------------------------------------------------------------------------------------------------ the daemons
# The command line of each daemon, one argument per line (compared with the running one's to refuse a change).
args_etcd() {
  cat <<EOF
--name=colocate-kube
--data-dir=$ETCD_DATA
--listen-client-urls=http://127.0.0.1:$ETCD_PORT
--advertise-client-urls=http://127.0.0.1:$ETCD_PORT
--listen-peer-urls=http://127.0.0.1:$ETCD_PEER_PORT
--initial-advertise-peer-urls=http://127.0.0.1:$ETCD_PEER_PORT
--initial-cluster=colocate-kube=http://127.0.0.1:$ETCD_PEER_PORT
--log-level=warn
EOF
}
# --endpoint-reconciler-type=none: the kubernetes Service's endpoint would be 127.0.0.1, which the reconciler
# refuses to publish; nothing here reaches the API server through that Service.
args_kube-apiserver() {
  cat <<EOF
--etcd-servers=http://127.0.0.1:$ETCD_PORT
--bind-address=127.0.0.1
--advertise-address=127.0.0.1
--secure-port=$APISERVER_PORT
--tls-cert-file=$PKI/apiserver.crt
--tls-private-key-file=$PKI/apiserver.key
--client-ca-file=$PKI/ca.crt
--authorization-mode=Node,RBAC
--enable-admission-plugins=NodeRestriction,PodSecurity
--allow-privileged=true
--service-account-issuer=https://kubernetes.default.svc.cluster.local
--service-account-key-file=$PKI/sa.pub
--service-account-signing-key-file=$PKI/sa.key
--service-cluster-ip-range=$SERVICE_CIDR
--endpoint-reconciler-type=none
--requestheader-client-ca-file=$PKI/ca.crt
--requestheader-allowed-names=front-proxy-client
--requestheader-username-headers=X-Remote-User
--requestheader-group-headers=X-Remote-Group
--requestheader-extra-headers-prefix=X-Remote-Extra-
--proxy-client-cert-file=$PKI/front-proxy-client.crt
--proxy-client-key-file=$PKI/front-proxy-client.key
--cert-dir=$RUN/apiserver-certs
--profiling=false
EOF
}
args_kube-controller-manager() {
  cat <<EOF
--kubeconfig=$KUBE_DIR/controller-manager.kubeconfig
--authentication-kubeconfig=$KUBE_DIR/controller-manager.kubeconfig
--authorization-kubeconfig=$KUBE_DIR/controller-manager.kubeconfig
--bind-address=127.0.0.1
--secure-port=$CONTROLLER_MANAGER_PORT
--cert-dir=$RUN/controller-manager-certs
--leader-elect=false
--use-service-account-credentials=true
--service-account-private-key-file=$PKI/sa.key
--root-ca-file=$PKI/ca.crt
--cluster-signing-cert-file=$PKI/ca.crt
--cluster-signing-key-file=$PKI/ca.key
--controllers=*,-nodeipam
--enable-hostpath-provisioner=true
--profiling=false
EOF
}
# kube-proxy: the node's name and IP as above; health and metrics on loopback; the conntrack sysctls left as the host
# has them (0 = as is; by default it would raise nf_conntrack_max and set two TCP timeouts, host-wide).
args_kube-proxy() {
  cat <<EOF
--kubeconfig=$KUBE_DIR/kube-proxy.kubeconfig
--proxy-mode=nftables
--hostname-override=$KUBE_PROXY_NODE
--bind-address=$KUBE_PROXY_NODE_IP
--healthz-bind-address=127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT
--metrics-bind-address=127.0.0.1:$KUBE_PROXY_METRICS_PORT
--conntrack-max-per-core=0
--conntrack-tcp-timeout-established=0
--conntrack-tcp-timeout-close-wait=0
EOF
}
args_kube-scheduler() {
  cat <<EOF
--kubeconfig=$KUBE_DIR/scheduler.kubeconfig
--authentication-kubeconfig=$KUBE_DIR/scheduler.kubeconfig
--authorization-kubeconfig=$KUBE_DIR/scheduler.kubeconfig
--bind-address=127.0.0.1
--secure-port=$SCHEDULER_PORT
--cert-dir=$RUN/scheduler-certs
--leader-elect=false
--profiling=false
EOF
}
args_kwok() {
  cat <<EOF
--kubeconfig=$KUBE_DIR/kwok.kubeconfig
--manage-all-nodes=false
--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake
--cidr=10.244.0.0/16
--node-ip=127.0.0.1
--server-address=127.0.0.1:$KWOK_PORT
EOF
}
# The port each daemon listens on first (for the "taken" check) and how to tell it is healthy.
port_of() {
  case $1 in
    etcd) echo "$ETCD_PORT $ETCD_PEER_PORT" ;; kube-apiserver) echo "$APISERVER_PORT" ;;
    kube-controller-manager) echo "$CONTROLLER_MANAGER_PORT" ;; kube-scheduler) echo "$SCHEDULER_PORT" ;;
    kube-proxy) echo "$KUBE_PROXY_HEALTHZ_PORT $KUBE_PROXY_METRICS_PORT" ;; kwok) echo "$KWOK_PORT" ;;
  esac
}
healthy() {
  case $1 in
    etcd) curl -sf "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"' ;;
    kube-apiserver) curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
      "$API_URL/readyz" >/dev/null ;;
    kube-controller-manager) curl -skf "https://127.0.0.1:$CONTROLLER_MANAGER_PORT/healthz" >/dev/null ;;
    kube-scheduler) curl -skf "https://127.0.0.1:$SCHEDULER_PORT/healthz" >/dev/null ;;
    # /healthz is 503 while the Node KUBE_PROXY_NODE does not exist; /livez is kube-proxy's own health, and the
    # metric shows the first sync of its IPv4 rules, from when on the ClusterIPs route
    kube-proxy) curl -sf "http://127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT/livez" >/dev/null &&
      curl -sf "http://127.0.0.1:$KUBE_PROXY_METRICS_PORT/metrics" |
      grep -q '^kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} [1-9]' ;;
    kwok) curl -sf "http://127.0.0.1:$KWOK_PORT/healthz" >/dev/null ;;
  esac
}
wanted() {
  case $1 in
    kube-scheduler) [ "$SCHEDULER" = 1 ] ;; kwok) [ "$KWOK" = 1 ] ;; kube-proxy) [ "$KUBE_PROXY" = 1 ] ;; *) true ;;
  esac
}

# port_owner PORT: the process listening on the loopback PORT, if any.
port_owner() { ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\("[^"]*",pid=[0-9]*\).*/\1/p' | head -n 1; }

start() {
  local d=$1 pidfile=$RUN/$1.pid argsfile=$RUN/$1.args
  local want
  want=$("args_$d")
  if alive "$pidfile"; then
    if [ "$want" != "$(cat "$argsfile" 2>/dev/null)" ]; then
      err "$d runs (pid $(head -n 1 "$pidfile")) with another configuration; run down.sh first:"
      diff <(cat "$argsfile" 2>/dev/null) <(echo "$want") >&2 || true
      exit 3
    fi
    log "$d already runs (pid $(head -n 1 "$pidfile"))"
    return 0
  fi
  local p owner
  for p in $(port_of "$d"); do
    owner=$(port_owner "$p")
    if [ -n "$owner" ]; then err "port $p, which $d needs, is taken by $owner"; exit 5; fi
  done
  echo "$want" > "$argsfile"
  local argv=()
  mapfile -t argv <<<"$want"
  # setsid: the daemons outlive the shell that started them (a test's harness call, or the sandbox's)
  setsid "$KUBE_BIN/$d" "${argv[@]}" >>"$LOGS/$d.log" 2>&1 < /dev/null &
  echo $! > "$pidfile"
  log "started $d (pid $!)"
}

started_and_healthy() {
  local d=$1
  if ! alive "$RUN/$d.pid"; then err "$d exited"; tail_logs "$LOGS/$d.log"; return 1; fi
  healthy "$d"
}

# come_up DAEMON: wait until it is healthy; if it exits or does not come up within UP_TIMEOUT, its log and exit 1.
come_up() {
  wait_for "$1" started_and_healthy "$1" && return 0
  tail_logs "$LOGS/$1.log"
  exit 1
}

# kube-proxy is waited for last: its first 30 s (waiting for its Node) pass while the others come up.
later=()
for d in "${DAEMONS[@]}"; do
  wanted "$d" || continue
  start "$d"
  if [ "$d" = kube-proxy ]; then later+=("$d"); else come_up "$d"; fi
done

# The default StorageClass, so that claims bind as on a cluster with a provisioner: the controller-manager's own
# host-path provisioner (--enable-hostpath-provisioner, meant for single-node test clusters) makes their volumes.
"$KUBE_BIN/kubectl" --kubeconfig "$KUBE_DIR/admin.kubeconfig" apply -f - >/dev/null <<EOF || die "could not create the default StorageClass"
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/host-path
reclaimPolicy: Delete
volumeBindingMode: Immediate
EOF

for d in "${later[@]}"; do come_up "$d"; done

cat > "$KUBE_DIR/env.sh" <<EOF
export KUBE_DIR="$KUBE_DIR"
export KUBE_BIN="$KUBE_BIN"
export KUBECONFIG="$KUBE_DIR/admin.kubeconfig"
export KUBE_API_URL="$API_URL"
export KUBE_CA="$PKI/ca.crt"
export PATH="$KUBE_BIN:\$PATH"
EOF
log "control plane up: $API_URL (kubeconfig $KUBE_DIR/admin.kubeconfig); source $KUBE_DIR/env.sh"
