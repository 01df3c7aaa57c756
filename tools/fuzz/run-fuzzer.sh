#!/usr/bin/env bash
# Builds a libFuzzer target (clang++, -fsanitize=fuzzer,address) into
# fuzz-build/ and runs it for SECONDS seconds over its seed corpus:
# FUZZ_TARGET=frontend (default: the .gnn front end, seeds tools/fuzz/corpus)
# or FUZZ_TARGET=readers (npy, safetensors, csv, csv.gz and manifest.json
# readers, link pair files, knowledge-graph triples, fold files, TU and OGB
# graph collections; seeds tools/fuzz/corpus-readers).
#
#   [FUZZ_TARGET=readers] tools/fuzz/run-fuzzer.sh [SECONDS] [libFuzzer flags...]
#
# New inputs go to fuzz-build/corpus-<target> (the checked-in seeds are read,
# never written); crashes are written to fuzz-build/artifacts/.
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
TARGET=${FUZZ_TARGET:-frontend}
case $TARGET in
  frontend) SEEDS=$ROOT/tools/fuzz/corpus
            EXTRA=(-dict="$BUILD/gnn.dict" -max_len=8192) ;;
  readers)  SEEDS=$ROOT/tools/fuzz/corpus-readers; EXTRA=(-max_len=4096) ;;
  *) echo "run-fuzzer.sh: FUZZ_TARGET must be frontend or readers" >&2; exit 2 ;;
esac
BINARY=gnn-fuzz-$TARGET
# The dictionary: the language's words, and the train settings' keys,
# optimizers and fields from their records (no setting is listed by hand).
mkdir -p "$BUILD"
{
  cat "$ROOT/tools/fuzz/gnn.dict"
  sed -nE 's/^GNN_TRAIN_(SETTING|OPTIMIZER|FIELD)\(([a-z_0-9]+),.*/s_\2="\2"/p' \
    "$ROOT/runtime/include/gnnrt/train/TrainSettings.def" | sort -u
} > "$BUILD/gnn.dict"
cmake --build "$BUILD" --target "$BINARY"

mkdir -p "$BUILD/corpus-$TARGET" "$BUILD/artifacts"
JOBS=${FUZZ_JOBS:-1}
LOG=$BUILD/fuzz-$TARGET.log
echo "fuzzing for ${SECONDS_TO_RUN}s (log: $LOG)"
set +e
(cd "$BUILD" && ./"$BINARY" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "${EXTRA[@]}" \
  -artifact_prefix="$BUILD/artifacts/" \
  "$@" "$BUILD/corpus-$TARGET" "$SEEDS") 2>&1 | tee "$LOG" | \
  grep -E --line-buffered '(DONE|pulse|NEW_FUNC|ERROR|SUMMARY|Test unit|stat::|crash|leak|timeout)' 
status=${PIPESTATUS[0]}
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
echo "$BINARY: ${runs:-?} runs in ${SECONDS_TO_RUN}s (${rate:-?} exec/s), exit ${status}"
ls "$BUILD"/artifacts/ 2>/dev/null | sed 's/^/artifact: /'
exit "$status"
