#!/usr/bin/env bash
# Fetch a librdkafka version's source from Debian's source packages, nothing else.
#
#   compat/librdkafka/fetch.sh [VERSION]     prints the unpacked source directory (default 2.0.2)
#
# VERSION/suite.conf names the Debian suite and package version (2.0.2: bookworm 2.0.2-1,
# 2.14.2: sid 2.14.2-1). A private apt configuration under $ROKKA_COMPAT_DIR (default
# /tmp/rokka-compat), outside the repo and apart from the system's /etc/apt, holds one deb-src
# entry for that suite on the machine's own Debian mirror; `apt-get source --download-only` gets
# the .dsc and tarballs and `dpkg-source -x --skip-patches` unpacks upstream's source as released
# (Debian's patches only touch the package's own build: see compat/README.md).
# Idempotent: does nothing when the source is already unpacked.
# Also installs the build tools the test-runner needs (BUILD_PACKAGES + suite.conf's FEATURE_PACKAGES).
set -euo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/suite.sh"
load_suite "${1:-}"
readonly SRC_DIR=$COMPAT_DIR/librdkafka-$VERSION
readonly APT_DIR=$COMPAT_DIR/apt-$DEB_SUITE
readonly KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# What building tests/test-runner needs besides the features (see build.sh). rapidjson-dev
# (headers only) lets 0053, 0110 check the statistics JSON instead of skipping. openssl (the
# program) is for run.py: its security scenarios make their keys and certificates with it.
readonly BUILD_PACKAGES=(dpkg-dev build-essential cmake ninja-build liblz4-dev libzstd-dev zlib1g-dev rapidjson-dev
  openssl "${FEATURE_PACKAGES[@]}")

log() { echo "fetch: $*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_packages() {
  local p
  for p in "${BUILD_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
  done
}

debian_mirror() {  # the Debian archive this machine's apt installs from (its "deb" entry)
  apt-get indextargets --format '$(REPO_URI)' 'Origin: Debian' 'Label: Debian' 'Identifier: Packages' | head -1
}

private_apt() {  # apt-get with the private configuration: only the deb-src entry below
  apt-get -c "$APT_DIR/apt.conf" "$@"
}

ensure_private_apt() {
  [ -f "$APT_DIR/apt.conf" ] && return 0
  local mirror
  mirror=$(debian_mirror)
  if [ -z "$mirror" ]; then
    as_root apt-get update -q >&2
    mirror=$(debian_mirror)
  fi
  [ -n "$mirror" ] || { log "no Debian archive in this machine's apt sources"; exit 1; }
  log "private apt configuration $APT_DIR: deb-src $mirror $DEB_SUITE main"
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/sources.list.d"
  echo "deb-src [signed-by=$KEYRING] $mirror $DEB_SUITE main" >"$APT_DIR/sources.list"
  cat >"$APT_DIR/apt.conf" <<EOF
Dir::Etc::SourceList "$APT_DIR/sources.list";
Dir::Etc::SourceParts "$APT_DIR/sources.list.d";
Dir::State::Lists "$APT_DIR/lists";
EOF
}

download() {  # the .dsc and its tarballs into COMPAT_DIR
  # apt-get downloads as root when _apt cannot write to the directory; that is expected here.
  (cd "$COMPAT_DIR" && private_apt source -q --download-only "librdkafka=$DEB_VERSION" >&2)
}

main() {
  local missing start=$SECONDS
  missing=$(missing_packages)
  if [ -n "$missing" ]; then
    log "installing build packages: $missing"
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
  fi
  if [ -f "$SRC_DIR/tests/test.c" ]; then
    echo "$SRC_DIR"
    return 0
  fi
  mkdir -p "$COMPAT_DIR"
  ensure_private_apt
  compgen -G "$APT_DIR/lists/*_Sources*" >/dev/null || private_apt update -q >&2
  download || {
    log "apt-get source failed; retrying after apt-get update"
    private_apt update -q >&2
    download || { log "Debian $DEB_SUITE has no librdkafka $DEB_VERSION source (any more?): $(private_apt showsrc librdkafka 2>/dev/null | grep -m1 '^Version')"; exit 1; }
  }
  rm -rf "$SRC_DIR"
  dpkg-source -x --skip-patches "$COMPAT_DIR/librdkafka_$DEB_VERSION.dsc" "$SRC_DIR" >&2
  [ -f "$SRC_DIR/tests/test.c" ] || { log "no $SRC_DIR/tests/test.c after dpkg-source -x"; exit 1; }
  log "source unpacked in $((SECONDS - start))s: $SRC_DIR"
  echo "$SRC_DIR"
}

main "$@"
