#!/usr/bin/env bash
# A librdkafka version's own integration tests against a broker: fetch, build, run (see compat/README.md).
#
#   compat/librdkafka/run.sh [--version 2.0.2|2.14.2] [--tests LIST|FILE] [--quick] [--timeout S]
#                            [--broker PATH|mock] [--report FILE] [--work DIR] [--kafka-version X.Y.Z]
#
#   --version  the suite: a directory beside this script with suite.conf and its lists (default 2.0.2)
#   --tests    'all' (default: 0000-0999 minus VERSION/excluded.txt), names or numbers
#              (0045,0012_produce_consume), or a file with one per line (VERSION/expected-pass.txt)
#   --broker   the broker binary (default $ROKKA_BIN, else <repo>/build/rokka), or 'mock' for
#              librdkafka's mock cluster run as a separate shared broker (validates the harness)
#   --report   markdown table, default <work>/report.md; the last line printed is `N passed, M failed`
#   --kafka-version  TEST_KAFKA_VERSION (default: VERSION/suite.conf's)
#   --local-only  run only the selected tests that need no broker (says which it drops)
#   --security S  run the selected broker tests in security scenario(s) S (comma list; 'plaintext'
#              for none) instead of VERSION/security.txt's; --subtests X sets SUBTESTS=X (by hand)
#   --group-protocol classic|consumer  TEST_CONSUMER_GROUP_PROTOCOL (default classic; consumer:
#              KIP-848's group.protocol for every consumer the tests make, 2.14.2 only)
#   --brokers N  N > 1: a cluster of N Rokka brokers on an etcd member started for each broker
#              start (docs/cluster.md; PLAINTEXT only), the suite bootstrapping from all of them
# Exit status 1 if any selected test failed.
set -euo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
readonly REPO=$(cd "$HERE/../.." && pwd)
source "$HERE/suite.sh"

broker=${ROKKA_BIN:-$REPO/build/rokka}
version=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --broker) broker=$2; shift 2 ;;
    --broker=*) broker=${1#--broker=}; shift ;;
    --version) version=$2; shift 2 ;;
    --version=*) version=${1#--version=}; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
load_suite "$version"
if [ "$broker" != mock ]; then
  [ -x "$broker" ] || { echo "run.sh: broker $broker not found (build it, or pass --broker)" >&2; exit 2; }
  broker=$(cd "$(dirname "$broker")" && pwd)/$(basename "$broker")
fi

src=$("$HERE/fetch.sh" "$VERSION")
build=$("$HERE/build.sh" "$VERSION")
exec /usr/bin/python3 "$HERE/run.py" --runner "$build/tests/test-runner" --source "$src" \
  --suite-dir "$SUITE_DIR" --kafka-version "$KAFKA_VERSION" --broker "$broker" "${args[@]}"
