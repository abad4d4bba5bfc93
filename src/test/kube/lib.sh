# shellcheck shell=bash disable=SC2034  # sourced: the layout variables are used by up.sh and down.sh
# Shared by up.sh and down.sh (sourced, not run): the on-disk layout under KUBE_DIR, the ports, and the certificates.
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
# Service ClusterIPs come from here; nothing routes them (there is no kube-proxy).
SERVICE_CIDR=${SERVICE_CIDR:-10.96.0.0/16}
API_URL=https://127.0.0.1:$APISERVER_PORT

# The daemons, in start order; down.sh stops them in the reverse order.
DAEMONS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# ours PID (for alive and stop_pidfiles): the daemons run on the host, so a live process is all a PID file needs.
ours() { running "$1"; }

LOG_TAG=${LOG_TAG:-kube}
# shellcheck source=SCRIPTDIR/../slurm/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../slurm/common.sh"

# ------------------------------------------------------------------------------------------------ certificates
# One CA signs everything: the API server's serving certificate, every client's certificate (the controller-manager,
# the scheduler, kwok and the admin authenticate by their certificate's CN and O, as kubeadm's do) and, through the
# controller-manager, the ServiceAccount tokens' issuer is the API server. Made once; up.sh keeps them across restarts.

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
