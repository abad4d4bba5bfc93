# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh and down.sh
# Shared by up.sh and down.sh (sourced, not run): the on-disk layout under KUBE_DIR, the ports, the certificates, and
# kube-proxy's nftables tables (the one thing of the harness's that is not under KUBE_DIR).
# The generic process and waiting helpers (alive, stop_pidfiles, wait_for, purge_dir, ...) are the Slurm harness's,
# from ../slurm/common.sh, so that both harnesses stop and wait the same way.

KUBE_DIR=${KUBE_DIR:-/tmp/colocate-kube}
PKI=$KUBE_DIR/pki
ETCD_DATA=$KUBE_DIR/etcd
LOGS=$KUBE_DIR/log
RUN=$KUBE_DIR/run
# down.sh --purge removes KUBE_DIR only when this marker is there, so a mistyped KUBE_DIR is never wiped.
MARKER=$KUBE_DIR/.colocate-kube

ETCD_PORT=${ETCD_PORT:-22379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-22380}
APISERVER_PORT=${APISERVER_PORT:-16443}
CONTROLLER_MANAGER_PORT=${CONTROLLER_MANAGER_PORT:-20257}
SCHEDULER_PORT=${SCHEDULER_PORT:-20259}
KWOK_PORT=${KWOK_PORT:-20247}
KUBE_PROXY_HEALTHZ_PORT=${KUBE_PROXY_HEALTHZ_PORT:-20256}
KUBE_PROXY_METRICS_PORT=${KUBE_PROXY_METRICS_PORT:-20249}
# Service ClusterIPs come from here. kube-proxy (KUBE_PROXY=1) routes them on this host: its nftables rules DNAT
# a connection to a ClusterIP, from the host or from a pod's network namespace, to one of the Service's endpoints.
SERVICE_CIDR=${SERVICE_CIDR:-10.96.0.0/16}
API_URL=https://127.0.0.1:$APISERVER_PORT

# The daemons, in start order; down.sh stops them in the reverse order.
DAEMONS=(etcd kube-apiserver kube-controller-manager kube-proxy kube-scheduler kwok)

# kube-proxy's rules are the host's, not KUBE_DIR's: the nftables tables "ip kube-proxy" and "ip6 kube-proxy" (the
# names are kube-proxy's own, so one kube-proxy per host). down.sh deletes them once no kube-proxy runs.
KUBE_PROXY_TABLES=("ip kube-proxy" "ip6 kube-proxy")

# ours PID (for alive and stop_pidfiles): the daemons run on the host, so a live process is all a PID file needs.
ours() { running "$1"; }

LOG_TAG=${LOG_TAG:-kube}
# shellcheck source=SCRIPTDIR/../slurm/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../slurm/common.sh"

# ------------------------------------------------------------------------------------------------ certificates
# One CA signs everything: the API server's serving certificate, every client's certificate (the controller-manager,
# the scheduler, kube-proxy, kwok and the admin authenticate by their certificate's CN and O, as kubeadm's do) and,
# through the controller-manager, the ServiceAccount tokens' issuer is the API server. Made once; up.sh keeps them
# across restarts.

# cert NAME SUBJECT [SAN]: NAME.key and NAME.crt, signed by the CA, valid for a year.
cert() {
  local name=$1 subject=$2 san=${3:-}
  [ -s "$PKI/$name.crt" ] && return 0
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/$name.key" 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subject" -out "$PKI/$name.csr" 2>/dev/null
  local ext=$PKI/$name.ext
  if [ -n "$san" ]; then
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' "$san" > "$ext"
  else
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' > "$ext"
  fi
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 365 \
    -extfile "$ext" -out "$PKI/$name.crt" 2>/dev/null || die "openssl could not sign the certificate $name"
  rm -f "$PKI/$name.csr" "$ext"
  chmod 600 "$PKI/$name.key"
}

# The first address of SERVICE_CIDR: the kubernetes Service's ClusterIP, which the serving certificate must name.
first_service_ip() {
  local base=${SERVICE_CIDR%/*} a b c d
  IFS=. read -r a b c d <<<"$base"
  echo "$a.$b.$c.$((d + 1))"
}

make_pki() {
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  command -v openssl >/dev/null || die "openssl is required to make the control plane's certificates"
  if [ ! -s "$PKI/ca.crt" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=colocate-kube-ca" -days 3650 -out "$PKI/ca.crt" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null \
      || die "openssl could not make the CA"
    chmod 600 "$PKI/ca.key"
  fi
  cert apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:$(first_service_ip),DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin "/O=system:masters/CN=colocate-kube-admin"
  # what the API server presents when it proxies to an extension API server; with it, the controller-manager's and
  # the scheduler's delegated authentication finds the request-header CA it looks for
  cert front-proxy-client "/CN=front-proxy-client"
  cert controller-manager "/CN=system:kube-controller-manager"
  cert scheduler "/CN=system:kube-scheduler"
  # the user that the default ClusterRoleBinding system:node-proxier binds (Services, EndpointSlices, Nodes: read)
  cert kube-proxy "/CN=system:kube-proxy"
  # kwok stands in for the kubelets of every fake node, so it acts as the cluster's admin
  cert kwok "/O=system:masters/CN=kwok"
  if [ ! -s "$PKI/sa.key" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
    openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
    chmod 600 "$PKI/sa.key"
  fi
}

# kubeconfig NAME: KUBE_DIR/NAME.kubeconfig for the client certificate NAME.
kubeconfig() {
  local name=$1 file=$KUBE_DIR/$1.kubeconfig
  cat > "$file" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: colocate-kube
    cluster:
      server: $API_URL
      certificate-authority: $PKI/ca.crt
users:
  - name: $name
    user:
      client-certificate: $PKI/$name.crt
      client-key: $PKI/$name.key
contexts:
  - name: $name
    context:
      cluster: colocate-kube
      user: $name
current-context: $name
EOF
  chmod 600 "$file"
}

# ------------------------------------------------------------------------------------------------ kube-proxy
# other_kube_proxies: the kube-proxy processes in this host's network namespace that are not this harness's
# (another KUBE_DIR's, or a real node's), "PID ARGS" a line. They share the tables above with ours.
other_kube_proxies() {
  local p ours_pid="" netns
  alive "$RUN/kube-proxy.pid" && ours_pid=$(head -n 1 "$RUN/kube-proxy.pid")
  netns=$(readlink /proc/self/ns/net)
  for p in $(pgrep -x kube-proxy || true); do
    [ "$p" != "$ours_pid" ] && running "$p" && [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$netns" ] &&
      echo "$p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | sed 's/ $//')"
  done
  return 0
}

# nft_on_path: true when nft can be run, adding /usr/sbin (where Debian puts it) to a PATH without it; kube-proxy,
# which runs nft, inherits the PATH.
nft_on_path() {
  command -v nft >/dev/null && return 0
  [ -x /usr/sbin/nft ] || return 1
  PATH=$PATH:/usr/sbin
}

# remove_kube_proxy_tables: delete kube-proxy's nftables tables, unless some kube-proxy still runs on this host.
remove_kube_proxy_tables() {
  nft_on_path || return 0
  local t others
  others=$(other_kube_proxies)
  if alive "$RUN/kube-proxy.pid" || [ -n "$others" ]; then
    log "kube-proxy's nftables tables stay: a kube-proxy still runs${others:+ (pid ${others%% *})}"
    return 0
  fi
  for t in "${KUBE_PROXY_TABLES[@]}"; do
    nft list table "${t% *}" "${t#* }" >/dev/null 2>&1 || continue
    nft delete table "${t% *}" "${t#* }" || die "could not delete the nftables table $t"
    log "deleted kube-proxy's nftables table $t"
  done
}
