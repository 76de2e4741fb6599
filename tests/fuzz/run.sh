#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, ASan + UBSan, aborting on any report) and
# runs each for N seconds from its seed corpus. A crash leaves crash-* / leak-* /
# timeout-* files in the build dir and fails the script.
#   bash tests/fuzz/run.sh [seconds per target, default 60] [build dir, default build-fuzz]
# Seeds: request frames from tests/protocol/golden/*Request.golden (every API and
# version we decode) plus tests/fuzz/seeds/<target>/ (committed samples).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
out=${2:-build-fuzz}
cxx=${CXX_FUZZ:-clang++-14}
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I.)
libs=(-llz4 -lzstd -lz -lsnappy)
mkdir -p "$out/obj"

# Objects of the code under test (protocol/ and the CRC it uses), two compilers at once;
# an object newer than its source is reused (headers are not tracked: use a fresh dir).
ls protocol/*.cc storage/crc32c.cc tests/fuzz/fuzz_*.cc |
  xargs -P2 -I{} sh -c 'o="$1/obj/$(echo "${2%.cc}" | tr / _).o"; [ "$o" -nt "$2" ] || '"$cxx"' '"${flags[*]}"' -c "$2" -o "$o"' _ "$out" {}
lib_objs=$(ls "$out"/obj/protocol_*.o "$out"/obj/storage_crc32c.o)

python3 - "$out" <<'PY'
import glob, os, sys
out = sys.argv[1]
os.makedirs(f"{out}/seeds/request", exist_ok=True)
for f in glob.glob("tests/protocol/golden/*Request.golden"):
    for line in open(f):
        parts = line.split()
        if len(parts) >= 4 and parts[1:3] == ["full", "frame"]:
            name = os.path.basename(f)[: -len(".golden")] + "_" + parts[0]
            open(f"{out}/seeds/request/{name}", "wb").write(bytes.fromhex(parts[3]))
PY

status=0
check_artifacts() {  # check_artifacts TARGET: a crash, leak, timeout or oom file left behind fails the run
  local f
  for f in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do  # one test per file
    if [ -e "$f" ]; then echo "fuzz_$1 left $f"; status=1; fi
  done
}
for target in request records validate; do
  $cxx -fsanitize=fuzzer,address,undefined $lib_objs "$out/obj/tests_fuzz_fuzz_$target.o" "${libs[@]}" -o "$out/fuzz_$target"
  mkdir -p "$out/corpus/$target" "$out/seeds/$target"
  [ -d "tests/fuzz/seeds/$target" ] && cp -n tests/fuzz/seeds/$target/* "$out/seeds/$target/" 2>/dev/null || true
  echo "== fuzz_$target: ${secs}s"
  if ! (cd "$out" && ./fuzz_$target -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
          "corpus/$target" "seeds/$target" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)|Done "); then
    :
  fi
  check_artifacts "$target"
done
source tests/fuzz/security.sh  # the security room's targets
exit $status
