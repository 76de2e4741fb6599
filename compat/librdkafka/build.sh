#!/usr/bin/env bash
# Build a librdkafka version's tests/test-runner (plus what it loads) from the Debian source.
#
#   compat/librdkafka/build.sh [VERSION]     prints the build directory (default 2.0.2)
#
# Output, under $ROKKA_COMPAT_DIR/build-VERSION (default /tmp/rokka-compat):
#   src/librdkafka.so.1                     the library test-runner runs against (run.py puts
#                                           it first on LD_LIBRARY_PATH and checks with ldd)
#   tests/test-runner                       the suite (all 0xxx tests linked in)
#   tests/interceptor_test/interceptor_test.so   plugin that 0066_plugins loads
#   rokka-mock-broker                       librdkafka's mock cluster as a shared broker
#                                           (validates the harness without Rokka)
# Only what test-runner needs is built: CMake + Ninja, no examples, the features of
# VERSION/suite.conf (2.0.2 without SSL, SASL or curl; 2.14.2 with SSL and SASL), -O0 without -g
# for compile speed (librdkafka's asserts stay on). Idempotent: skipped when the stamp matches.
set -euo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/suite.sh"
load_suite "${1:-}"
readonly BUILD_DIR=$COMPAT_DIR/build-$VERSION
readonly JOBS=${ROKKA_COMPAT_JOBS:-2}

log() { echo "build: $*" >&2; }

# Subtests that need something no single plaintext broker can offer are switched to the
# suite's own SUB_TEST_SKIP (or their precondition turned off), each one documented in
# VERSION/excluded.txt under "subtests". A marker line makes each edit idempotent.
skip_subtests() {
  local src=$1 file
  file=$src/tests/0113-cooperative_rebalance.cpp
  if ! grep -q 'rokka-compat: java' "$file"; then
    # o_java_interop starts Kafka's Java consumer (test_run_java): no Kafka Java client here.
    sed -i '/^static void o_java_interop() {$/,/SUB_TEST();/ s|SUB_TEST();|&\n  SUB_TEST_SKIP("rokka-compat: java client not available\\n");|' "$file"
    grep -q 'rokka-compat: java' "$file" || { log "could not patch $file"; exit 1; }
  fi
  file=$src/tests/0109-auto_create_topics.cpp
  if ! grep -q 'rokka-compat: acl' "$file"; then
    # The ACL half shells out to Kafka's kafka-acls.sh (Java); run the rest, as for Kafka < 2.1.
    sed -i 's|bool has_acl_cli = test_broker_version|bool has_acl_cli = false /* rokka-compat: acl */ \&\& test_broker_version|' "$file"
    grep -q 'rokka-compat: acl' "$file" || { log "could not patch $file"; exit 1; }
  fi
  file=$src/tests/0142-reauthentication.c  # 2.14.2 only
  if [ -f "$file" ] && ! grep -q 'rokka-compat: replicas' "$file"; then
    # do_test_consumer creates its topic with replication factor 3: one broker (Kafka's too)
    # answers INVALID_REPLICATION_FACTOR. The other subtests create theirs with the default.
    sed -i '/^void do_test_consumer(/,/SUB_TEST(/ s|SUB_TEST(.*);|&\n        SUB_TEST_SKIP("rokka-compat: replicas: replication factor 3\\n");|' "$file"
    grep -q 'rokka-compat: replicas' "$file" || { log "could not patch $file"; exit 1; }
  fi
}

stamp_of() {  # what the build depends on besides the (fixed) upstream source
  cat "$HERE/build.sh" "$HERE/mock_broker.c" "$SUITE_DIR/suite.conf" | sha256sum | cut -d' ' -f1
}

main() {
  local src stamp start
  src=$("$HERE/fetch.sh" "$VERSION")
  stamp=$(stamp_of)
  if [ -x "$BUILD_DIR/tests/test-runner" ] && [ -x "$BUILD_DIR/rokka-mock-broker" ] &&
     [ "$(cat "$BUILD_DIR/.rokka-stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$BUILD_DIR"
    return 0
  fi
  start=$SECONDS
  skip_subtests "$src"
  # WITH_RAPIDJSON: librdkafka's configure detects it, its CMake build does not.
  # -fmacro-prefix-map: tests name topics after __FILE__ (0110, 0114); upstream's Makefile build
  # compiles in tests/ so __FILE__ is "0110-batch_size.cpp", not an absolute path with '/'.
  # -rdynamic: as upstream's tests/Makefile links test-runner, so the plugin 0066_plugins loads
  # (2.14.2's calls test_level, test_fail0, ... back in test-runner) resolves against it.
  local prefix_map="-fmacro-prefix-map=$src/tests/="
  cmake -S "$src" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$prefix_map" \
    -DCMAKE_CXX_FLAGS="-DWITH_RAPIDJSON=1 $prefix_map" -DCMAKE_EXE_LINKER_FLAGS=-rdynamic \
    "${CMAKE_FEATURES[@]}" \
    -DRDKAFKA_BUILD_EXAMPLES=OFF -DRDKAFKA_BUILD_TESTS=ON >"$BUILD_DIR.cmake.log" 2>&1 ||
    { tail -30 "$BUILD_DIR.cmake.log" >&2; exit 1; }
  ninja -C "$BUILD_DIR" -j "$JOBS" test-runner interceptor_test >"$BUILD_DIR.ninja.log" 2>&1 ||
    { tail -30 "$BUILD_DIR.ninja.log" >&2; exit 1; }
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -isystem "$src/src" "$HERE/mock_broker.c" \
    -L"$BUILD_DIR/src" -lrdkafka -Wl,-rpath,"$BUILD_DIR/src" -o "$BUILD_DIR/rokka-mock-broker"
  echo "$stamp" >"$BUILD_DIR/.rokka-stamp"
  log "test-runner built in $((SECONDS - start))s with -j$JOBS: $BUILD_DIR"
  echo "$BUILD_DIR"
}

main "$@"
