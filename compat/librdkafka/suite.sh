# Sourced by fetch.sh, build.sh and run.sh. `load_suite VERSION` reads VERSION/suite.conf (one
# directory per librdkafka version: suite.conf, expected-pass.txt, excluded.txt, flaky.txt).
readonly SUITE_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly COMPAT_DIR=${ROKKA_COMPAT_DIR:-/tmp/rokka-compat}  # source and build cache, outside the repo
readonly DEFAULT_VERSION=2.0.2

load_suite() {  # load_suite VERSION: sets VERSION, SUITE_DIR and suite.conf's variables
  VERSION=${1:-$DEFAULT_VERSION}
  SUITE_DIR=$SUITE_HERE/$VERSION
  if [ ! -f "$SUITE_DIR/suite.conf" ]; then
    echo "no librdkafka version $VERSION here (known: $(cd "$SUITE_HERE" && ls -d */suite.conf | cut -d/ -f1 | xargs))" >&2
    exit 2
  fi
  # shellcheck source=/dev/null
  source "$SUITE_DIR/suite.conf"
}
