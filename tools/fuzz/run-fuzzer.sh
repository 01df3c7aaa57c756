#!/usr/bin/env bash
# Builds gnn-fuzz-frontend (clang++, -fsanitize=fuzzer,address) into
# fuzz-build/ and runs it for SECONDS seconds over the seed corpus.
#
#   tools/fuzz/run-fuzzer.sh [SECONDS] [extra libFuzzer flags...]
#
# New inputs go to fuzz-build/corpus (the checked-in seeds in tools/fuzz/corpus
# are read, never written); crashes are written as fuzz-build/crash-*.
# Exit status is libFuzzer's: non-zero when it found a crash, leak or timeout.
set -euo pipefail

SECONDS_TO_RUN=${1:-60}
shift || true
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${FUZZ_BUILD:-$ROOT/fuzz-build}
CXX_COMPILER=${FUZZ_CXX:-$(command -v clang++ || command -v clang++-14)}

if [[ ! -f $BUILD/build.ninja ]]; then
  cmake -S "$ROOT/tools/fuzz" -B "$BUILD" -G Ninja \
    -DCMAKE_CXX_COMPILER="$CXX_COMPILER" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$BUILD" --target gnn-fuzz-frontend

mkdir -p "$BUILD/corpus" "$BUILD/artifacts"
JOBS=${FUZZ_JOBS:-1}
LOG=$BUILD/fuzz.log
echo "fuzzing for ${SECONDS_TO_RUN}s (log: $LOG)"
set +e
(cd "$BUILD" && ./gnn-fuzz-frontend \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -print_final_stats=1 \
  -dict="$ROOT/tools/fuzz/gnn.dict" \
  -artifact_prefix="$BUILD/artifacts/" \
  "$@" "$BUILD/corpus" "$ROOT/tools/fuzz/corpus") 2>&1 | tee "$LOG" | \
  grep -E --line-buffered '(DONE|pulse|NEW_FUNC|ERROR|SUMMARY|Test unit|stat::|crash|leak|timeout)' 
status=${PIPESTATUS[0]}
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
echo "gnn-fuzz-frontend: ${runs:-?} runs in ${SECONDS_TO_RUN}s (${rate:-?} exec/s), exit ${status}"
ls "$BUILD"/artifacts/ 2>/dev/null | sed 's/^/artifact: /'
exit "$status"
