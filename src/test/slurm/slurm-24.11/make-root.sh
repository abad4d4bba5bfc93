#!/bin/bash
# make-root.sh - build (once) a Debian 13 (trixie) root file system holding Slurm 24.11, munge and slurmrestd,
# for up.sh to run chrooted. Idempotent: a complete root is only re-checked (users, no stray daemons), not rebuilt.
# With COLOCATE_SLURM_SERIES=26.05 (../slurm-26.05/make-root.sh) the Slurm packages come from Debian testing
# (forky) on top of trixie instead, and the defaults below read 26.05 for 24.11 (series.sh).
#
# Environment (defaults in brackets):
#   ROOT  [/var/tmp/colocate-slurm-24.11-root]      the root file system (about 240 MB)
#   CACHE [/var/tmp/colocate-slurm-24.11-debcache]  downloaded .debs and a tar of the finished root (about 290 MB
#                                                   together), so that a rebuild needs no download and no unpacking
#   MIRROR [from this machine's apt sources]        Debian mirror URL
#   SKIP_APT [0]                                    1 = never run apt-get (debootstrap must be installed)
#   REBUILD [0]                                     1 = delete ROOT and its tar and run debootstrap again
# Needs root. The mirror is read from /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list at run time.
set -euo pipefail
# shellcheck source=SCRIPTDIR/series.sh  # SUITE PKGS EXTRA_SUITE EXTRA_PKGS DEFAULT_ROOT DEFAULT_CACHE
. "$(dirname "${BASH_SOURCE[0]}")/series.sh"
ROOT=${ROOT:-$DEFAULT_ROOT}
CACHE=${CACHE:-$DEFAULT_CACHE}
SKIP_APT=${SKIP_APT:-0}
REBUILD=${REBUILD:-0}
# Written last, so that an interrupted build is started again rather than taken for a complete root.
DONE=$ROOT/.colocate-root-complete
# A tar of the finished root, named after what it contains.
if [ -z "$EXTRA_SUITE" ]; then
  SNAPSHOT=$CACHE/root-$SUITE-$(echo "$SUITE $PKGS" | md5sum | cut -c1-12).tar
else
  SNAPSHOT=$CACHE/root-$SUITE-$EXTRA_SUITE-$(echo "$SUITE $PKGS $EXTRA_SUITE $EXTRA_PKGS" | md5sum | cut -c1-12).tar
fi

T0=$(date +%s%N)
LOG_TAG=make-root
# shellcheck source=SCRIPTDIR/../common.sh  # for log and die
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

[ "$(id -u)" = 0 ] || die "run as root"
[[ $ROOT =~ ^/[A-Za-z0-9._/-]+$ && $ROOT != / ]] || die "ROOT must be an absolute path of [A-Za-z0-9._/-], got '$ROOT'"

# The first Debian (not security/updates) mirror of this machine's own apt configuration.
host_mirror() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk 'tolower($1)=="uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  [ -f /etc/apt/sources.list ] &&
    awk '$1=="deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) { print $i; exit } else break } }' \
      /etc/apt/sources.list
}

# Processes whose root directory is ROOT, i.e. daemons that a package script may have started in the chroot.
procs_in_root() {
  local d
  for d in /proc/[0-9]*; do
    [ "$(readlink "$d/root" 2>/dev/null)" = "$ROOT" ] && echo "${d#/proc/}"
  done
  return 0
}

# A failed debootstrap can leave /proc, /sys or /dev mounted in ROOT: never delete through a mount point.
wipe_root() {
  local m
  m=$(awk -v r="$ROOT" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo)
  [ -z "$m" ] || die "mounts below $ROOT, unmount them first: $m"
  rm -rf --one-file-system "$ROOT"
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  [ "$SKIP_APT" = 1 ] && die "debootstrap is not installed (SKIP_APT=1)"
  log "installing debootstrap"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=300 debootstrap; } >/dev/null || die "apt-get install debootstrap failed"
}

debootstrap_root() {
  local mirror=${MIRROR:-$(host_mirror)}
  [ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; set MIRROR"
  ensure_debootstrap
  log "debootstrap $SUITE into $ROOT (debs cached in $CACHE)"
  local blog; blog=$(mktemp)
  # debootstrap verifies the Release file with the host's debian-archive-keyring.
  if ! debootstrap --variant=minbase --cache-dir="$CACHE" --include="$PKGS" "$SUITE" "$ROOT" "$mirror" >"$blog" 2>&1; then
    tail -n 30 "$blog" >&2; die "debootstrap failed (full log: $blog)"
  fi
  rm -f "$blog"
  [ -z "$EXTRA_SUITE" ] || install_extra "$mirror"
  chroot "$ROOT" apt-get clean
  # Unpacking and configuring the packages, not the download, is what takes time (about 35 s even with every .deb
  # cached), so a finished root is also kept as a tar file: restoring it takes a few seconds.
  tar -C "$ROOT" --numeric-owner --xattrs -cf "$SNAPSHOT.tmp" . && mv "$SNAPSHOT.tmp" "$SNAPSHOT"
  log "root built (snapshot $SNAPSHOT)"
}

# install_extra MIRROR: add EXTRA_SUITE to the root's apt sources and install EXTRA_PKGS from it, SUITE staying the
# default release. apt runs chrooted in a private mount namespace, so that its /proc mount and the bind mount of
# CACHE/EXTRA_SUITE (where the downloaded .debs are kept for the next build) vanish with it. policy-rc.d keeps
# package scripts from starting daemons meanwhile. Check-Valid-Until is off because a mirror may serve testing's
# Release file after its short validity (seen: forky's expired for weeks); its signature is still checked.
install_extra() {
  local mirror=$1 blog debs=$CACHE/$EXTRA_SUITE p pkgs=()
  log "installing from $EXTRA_SUITE: $EXTRA_PKGS"
  for p in $EXTRA_PKGS; do pkgs+=("$p/$EXTRA_SUITE"); done
  mkdir -p "$debs/partial"
  printf 'deb %s %s main\n' "$mirror" "$EXTRA_SUITE" > "$ROOT/etc/apt/sources.list.d/$EXTRA_SUITE.list"
  printf 'APT::Default-Release "%s";\nAcquire::Check-Valid-Until "false";\n' "$SUITE" \
    > "$ROOT/etc/apt/apt.conf.d/90colocate-$EXTRA_SUITE"
  printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"; chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
  blog=$(mktemp)
  # shellcheck disable=SC2016  # expanded by the inner sh
  if ! unshare --mount --propagation private -- sh -ec '
      mount -t proc proc "$1/proc"; mount --bind "$2" "$1/var/cache/apt/archives"; root=$1; shift 2
      chroot "$root" apt-get update -q
      chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"' \
      _ "$ROOT" "$debs" "${pkgs[@]}" >"$blog" 2>&1; then
    tail -n 30 "$blog" >&2; die "installing from $EXTRA_SUITE failed (full log: $blog)"
  fi
  mv "$blog" "$CACHE/install-$EXTRA_SUITE.log"   # what came from which suite
  rm -f "$ROOT/usr/sbin/policy-rc.d"
}

# /usr/sbin/slurmctld is a link to /etc/alternatives/slurmctld, which only resolves inside the root (on the host it
# would need the host's own Slurm packages).
has_slurmctld() { [ -d "$ROOT/usr/sbin" ] && chroot "$ROOT" test -x /usr/sbin/slurmctld 2>/dev/null; }

build() {
  mkdir -p "$CACHE"
  wipe_root
  if [ "$REBUILD" != 1 ] && [ -f "$SNAPSHOT" ]; then
    log "restoring $ROOT from $SNAPSHOT"
    mkdir -p "$ROOT"
    tar -C "$ROOT" --numeric-owner --xattrs -xpf "$SNAPSHOT" || die "could not restore $SNAPSHOT (REBUILD=1 builds afresh)"
  else
    rm -f "$SNAPSHOT"
    debootstrap_root
  fi
  has_slurmctld || die "$ROOT has no /usr/sbin/slurmctld"
  touch "$DONE"
}

if [ "$REBUILD" = 1 ] || [ ! -f "$DONE" ] || ! has_slurmctld; then
  [ -z "$(procs_in_root)" ] || die "processes run inside $ROOT ($(procs_in_root | tr '\n' ' ')); run down.sh first"
  build
else
  log "root exists: $ROOT"
fi

# Package scripts run under debootstrap's fake start-stop-daemon, so no daemon should have started; a daemon left
# behind would hold the default ports (6817/6818) that another Slurm on this host may need.
[ -z "$(procs_in_root)" ] || log "WARNING: processes run inside $ROOT: $(procs_in_root | tr '\n' ' ')"

# slurmrestd refuses to run as root or SlurmUser; up.sh starts it with -u slurmrestd.
chroot "$ROOT" sh -ec '
  getent group slurmrestd >/dev/null || groupadd -r slurmrestd
  getent passwd slurmrestd >/dev/null || useradd -r -g slurmrestd -M -d /nonexistent -s /usr/sbin/nologin slurmrestd
  getent passwd slurm >/dev/null && getent passwd munge >/dev/null'
# Slurm keys on argv[0]: /usr/sbin/slurmctld and /usr/sbin/slurmd must lead to the real daemons, not the emulator.
for d in slurmctld slurmd; do
  real=$(chroot "$ROOT" readlink -f /usr/sbin/$d)
  [ "$real" = /usr/sbin/$d-wlm ] || [ "$real" = /usr/sbin/$d ] || die "/usr/sbin/$d in $ROOT leads to $real"
done
# shellcheck disable=SC2016  # dpkg-query's own ${...} format
log "$(chroot "$ROOT" dpkg-query -W -f='${Package}=${Version} ' slurmctld slurmd slurmrestd slurm-wlm-jwt-plugin munge)"
