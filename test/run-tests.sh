#!/usr/bin/env bash
# Runs every gnnc test suite (lit + FileCheck, GoogleTest through lit) against a build
# directory and ends with one summary line "N passed, N failed".
set -uo pipefail
BUILD=${1:-build}
cmake --build "$BUILD" --target gnnc-test-depends >/dev/null || exit 1
log=$(mktemp)
python3 /usr/lib/llvm-16/build/utils/lit/lit.py -sv "$BUILD/test" "$BUILD/test/Unit" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(grep -Eo '^ *(Passed|Expectedly Failed) *: *[0-9]+' "$log" | awk '{s+=$NF} END{print s+0}')
failed=$(grep -Eo '^ *(Failed|Unexpectedly Passed|Unresolved|Timed Out) *: *[0-9]+' "$log" | awk '{s+=$NF} END{print s+0}')
rm -f "$log"
echo "tests: ${passed:-0} passed, ${failed:-0} failed"
if [ "${passed:-0}" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
exit $rc
