#!/bin/bash
# build.sh - build a real Kubernetes control plane from source, through the Go module proxy: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kube-proxy, kubectl and kwok, at the versions pinned in modules/*/go.mod
# (with their go.sum), into a cache outside the checkout. Nothing prebuilt is downloaded. A second run finds the
# binaries of the same pins in the cache and builds nothing.
#
# Environment (defaults in brackets):
#   KUBE_CACHE [/var/cache/colocate-kube]   binaries go to KUBE_CACHE/<kubernetes version>-<digest of the pins>/bin
#   GOFLAGS, GOPROXY, GOMODCACHE, GOCACHE    as Go reads them (the module and build caches are Go's own, outside)
# Prints the directory of the binaries on its last line. Exit codes: 0 built or cached; 1 a build failed (its
# output is printed); 2 Go is missing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODULES=$HERE/modules
log() { printf '[kube-build %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null || { log "ERROR: go is required (Go 1.24 or later)"; exit 2; }
KUBE_VERSION=$(sed -n 's/^\(require\)\{0,1\}[[:space:]]*k8s.io\/kubernetes \(v[0-9][0-9.]*\)$/\2/p' "$MODULES/kube/go.mod" | head -n 1)
[ -n "$KUBE_VERSION" ] || die "no 'require k8s.io/kubernetes vX.Y.Z' line in $MODULES/kube/go.mod"
PINS=$(cat "$MODULES"/*/go.mod "$MODULES"/*/go.sum "$MODULES"/*/*.go "$0" | sha256sum | cut -c1-12)
OUT=${KUBE_CACHE:-/var/cache/colocate-kube}/$KUBE_VERSION-$PINS
BIN=$OUT/bin
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl kwok)

complete() { local b; for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done; }
if complete; then
  log "cached: ${BINARIES[*]} of Kubernetes $KUBE_VERSION in $BIN"
  echo "$BIN"
  exit 0
fi
mkdir -p "$BIN"

# As Kubernetes' own release build: static, without the test-only code paths; the version ldflags make
# /version and `kubectl version` tell the truth instead of v0.0.0-master.
export CGO_ENABLED=0
MINOR=$(echo "$KUBE_VERSION" | cut -d. -f2)
VERSION_FLAGS=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  VERSION_FLAGS+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
  VERSION_FLAGS+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

# build NAME MODULE_DIR LDFLAGS PACKAGE...: go build into a temporary directory, then move into BIN
build() {
  local name=$1 dir=$2 ldflags=$3; shift 3
  local start=$SECONDS tmp
  tmp=$(mktemp -d "$OUT/.build.XXXXXX")
  log "building $name ($*) in $dir"
  if ! (cd "$dir" && go build -mod=readonly -trimpath -tags=selinux,notest,grpcnotrace -ldflags "-s -w$ldflags" \
      -o "$tmp/" "$@") >"$tmp/build.log" 2>&1; then
    tail -n 60 "$tmp/build.log" >&2
    rm -rf "$tmp"
    die "building $name failed"
  fi
  local f
  for f in "$tmp"/*; do [ "$(basename "$f")" = build.log ] || mv -f "$f" "$BIN/"; done
  rm -rf "$tmp"
  log "built $name in $((SECONDS - start)) s"
}

start=$SECONDS
[ -x "$BIN/etcd" ] || build etcd "$MODULES/etcd" "" ./cmd/etcd
if [ ! -x "$BIN/kube-apiserver" ] || [ ! -x "$BIN/kube-controller-manager" ] || [ ! -x "$BIN/kube-scheduler" ] \
    || [ ! -x "$BIN/kube-proxy" ] || [ ! -x "$BIN/kubectl" ]; then
  build "Kubernetes $KUBE_VERSION" "$MODULES/kube" "$VERSION_FLAGS" k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kubectl
fi
[ -x "$BIN/kwok" ] || build kwok "$MODULES/kwok" "" sigs.k8s.io/kwok/cmd/kwok
complete || die "the build left no ${BINARIES[*]} in $BIN"
log "Kubernetes $KUBE_VERSION control plane built in $((SECONDS - start)) s into $BIN"
echo "$BIN"
