#!/usr/bin/env bash
# Fetch librdkafka 2.0.2's source from Debian's source packages, nothing else.
#
#   compat/librdkafka/fetch.sh        prints the unpacked source directory
#
# Uses a private apt sources file with one deb-src entry (bookworm main), then
# `apt-get source librdkafka=2.0.2-1` into $ROKKA_COMPAT_DIR (default /tmp/rokka-compat),
# outside the repo. Idempotent: does nothing when the source is already unpacked.
# Also installs the build tools the test-runner needs (see BUILD_PACKAGES).
set -euo pipefail

readonly VERSION=2.0.2
readonly DEB_VERSION=2.0.2-1
readonly COMPAT_DIR=${ROKKA_COMPAT_DIR:-/tmp/rokka-compat}
readonly SRC_DIR=$COMPAT_DIR/librdkafka-$VERSION
readonly SOURCES_FILE=/etc/apt/sources.list.d/rokka-deb-src.sources
# What building tests/test-runner needs: no SSL, SASL or curl (see build.sh). rapidjson-dev
# (headers only) lets 0053, 0110 check the statistics JSON instead of skipping.
readonly BUILD_PACKAGES=(dpkg-dev build-essential cmake ninja-build liblz4-dev libzstd-dev zlib1g-dev rapidjson-dev)

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

ensure_deb_src() {
  [ -f "$SOURCES_FILE" ] && return 0
  log "adding $SOURCES_FILE (deb-src bookworm main)"
  as_root tee "$SOURCES_FILE" >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  as_root apt-get update -q >&2
}

main() {
  local missing
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
  ensure_deb_src
  mkdir -p "$COMPAT_DIR"
  local start=$SECONDS
  # apt-get source downloads as root when _apt cannot write to the directory; that is expected here.
  (cd "$COMPAT_DIR" && apt-get source -q "librdkafka=$DEB_VERSION" >&2) || {
    log "apt-get source failed; retrying after apt-get update"
    as_root apt-get update -q >&2
    (cd "$COMPAT_DIR" && apt-get source -q "librdkafka=$DEB_VERSION" >&2)
  }
  [ -f "$SRC_DIR/tests/test.c" ] || { log "no $SRC_DIR/tests/test.c after apt-get source"; exit 1; }
  log "source unpacked in $((SECONDS - start))s: $SRC_DIR"
  echo "$SRC_DIR"
}

main "$@"
