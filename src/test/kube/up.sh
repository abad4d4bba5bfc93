#!/bin/bash
# up.sh - bring up a real Kubernetes control plane on loopback for colocate's tests and sandbox: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler (the default scheduler) and kwok, built by build.sh from the
# Go module proxy. Everything lives under KUBE_DIR; nothing outside it is touched. Source $KUBE_DIR/env.sh afterwards.
#
# - Its own CA, serving certificate, client certificates and ServiceAccount signing key (pki/), made once and kept.
# - kube-apiserver with --authorization-mode=Node,RBAC and the admission plugins NodeRestriction and PodSecurity
#   (enforced per namespace by its pod-security.kubernetes.io labels, as on any cluster).
# - kube-controller-manager with a credential per controller (--use-service-account-credentials, as kubeadm runs
#   it): Deployments, ReplicaSets, StatefulSets, garbage collection, ServiceAccount tokens, node lifecycle, and its
#   host-path provisioner behind the default StorageClass "standard", so that claims bind.
# - kwok stands in for the kubelets: it keeps every Node annotated kwok.x-k8s.io/node=fake Ready and moves the pods
#   bound to such nodes to Running, with no container runtime. Nodes without that annotation are left alone (the
#   stand-in kubelet of colocate's tests runs their pods as processes).
#
# Environment (defaults in brackets):
#   KUBE_DIR [/tmp/colocate-kube]   pki/ etcd/ log/ run/ *.kubeconfig env.sh
#   ETCD_PORT [22379]  ETCD_PEER_PORT [22380]  APISERVER_PORT [16443]  CONTROLLER_MANAGER_PORT [20257]
#   SCHEDULER_PORT [20259]  KWOK_PORT [20247]   loopback ports
#   SERVICE_CIDR [10.96.0.0/16]      Service ClusterIPs
#   SCHEDULER [1]                    0 = no default kube-scheduler (a test runs its own)
#   KWOK [1]                         0 = no kwok
#   UP_TIMEOUT [60]                  seconds to wait for each daemon before failing
#   KUBE_BIN                         the binaries' directory; unset = what build.sh builds or has cached
#
# Writes $KUBE_DIR/env.sh (KEY="value" exports): KUBE_DIR KUBE_BIN KUBECONFIG (the admin's) KUBE_API_URL KUBE_CA
# PATH (KUBE_BIN first, for kubectl).
#
# Idempotent: a daemon whose PID file names a live process is left alone. If its command line would now differ (another
# port, say), up.sh refuses with exit code 3 and shows the difference: run down.sh first.
# Exit codes: 0 every daemon up and healthy; 1 something failed to start or come up within UP_TIMEOUT (its log's tail
# is printed); 2 the build failed; 3 a running daemon's configuration differs; 5 a port is taken by another process.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=kube-up
. "$HERE/lib.sh"

SCHEDULER=${SCHEDULER:-1}
KWOK=${KWOK:-1}
UP_TIMEOUT=${UP_TIMEOUT:-60}
require_numbers ETCD_PORT ETCD_PEER_PORT APISERVER_PORT CONTROLLER_MANAGER_PORT SCHEDULER_PORT KWOK_PORT UP_TIMEOUT
[[ $SCHEDULER =~ ^[01]$ ]] || die "SCHEDULER must be 0 or 1, got '$SCHEDULER'"
[[ $KWOK =~ ^[01]$ ]] || die "KWOK must be 0 or 1, got '$KWOK'"
[[ $KUBE_DIR =~ ^/[A-Za-z0-9._/-]+$ ]] || die "KUBE_DIR must be an absolute path of [A-Za-z0-9._/-], got '$KUBE_DIR'"
[[ $SERVICE_CIDR =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/[0-9]+$ ]] || die "SERVICE_CIDR must be an IPv4 CIDR, got '$SERVICE_CIDR'"

if [ -z "${KUBE_BIN:-}" ]; then
  KUBE_BIN=$(bash "$HERE/build.sh" | tail -n 1) || { err "build.sh failed (its output is above)"; exit 2; }
fi
for b in "${DAEMONS[@]}" kubectl; do [ -x "$KUBE_BIN/$b" ] || { err "$KUBE_BIN/$b is missing: run build.sh"; exit 2; }; done

mkdir -p "$KUBE_DIR" "$LOGS" "$RUN" "$ETCD_DATA"
touch "$MARKER"
chmod 700 "$ETCD_DATA"
make_pki
for c in admin controller-manager scheduler kwok; do kubeconfig "$c"; done

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
    kwok) echo "$KWOK_PORT" ;;
  esac
}
healthy() {
  case $1 in
    etcd) curl -sf "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"' ;;
    kube-apiserver) curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
      "$API_URL/readyz" >/dev/null ;;
    kube-controller-manager) curl -skf "https://127.0.0.1:$CONTROLLER_MANAGER_PORT/healthz" >/dev/null ;;
    kube-scheduler) curl -skf "https://127.0.0.1:$SCHEDULER_PORT/healthz" >/dev/null ;;
    kwok) curl -sf "http://127.0.0.1:$KWOK_PORT/healthz" >/dev/null ;;
  esac
}
wanted() {
  case $1 in kube-scheduler) [ "$SCHEDULER" = 1 ] ;; kwok) [ "$KWOK" = 1 ] ;; *) true ;; esac
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

for d in "${DAEMONS[@]}"; do
  wanted "$d" || continue
  start "$d"
  if ! wait_for "$d" started_and_healthy "$d"; then
    tail_logs "$LOGS/$d.log"
    exit 1
  fi
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

cat > "$KUBE_DIR/env.sh" <<EOF
export KUBE_DIR="$KUBE_DIR"
export KUBE_BIN="$KUBE_BIN"
export KUBECONFIG="$KUBE_DIR/admin.kubeconfig"
export KUBE_API_URL="$API_URL"
export KUBE_CA="$PKI/ca.crt"
export PATH="$KUBE_BIN:\$PATH"
EOF
log "control plane up: $API_URL (kubeconfig $KUBE_DIR/admin.kubeconfig); source $KUBE_DIR/env.sh"
