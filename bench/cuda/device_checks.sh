#!/usr/bin/env bash
# bench/cuda/device_checks.sh - on a GPU machine without our toolchain, from
# the repository root: unpacks bench/gpu_bundle.sh's archive and runs each
# step under its own time limit (one stuck step leaves the others their time):
#   env        the GPU and driver; which libraries the binaries resolve
#   unit       RuntimeTests' CUDA kernel tests on the device
#   parity     test/Cuda's programs: the native CUDA trainer against its CPU
#              twin, the same seed (per-epoch losses, accuracy, AUC)
#   gradcheck  the CUDA train steps against float64 finite differences
#   profile    each kernel's share of the benchmark's GCN and SAGE epochs
#              (ncu, one metric: gpu__time_duration), on a 240k-node graph
#   sampling   bench/gpu_sampling.sh (1M nodes, 20M edges)
#   cuda_gcn   bench/cuda_gcn.sh (2.4M nodes, 62M edges), PyG beside, fp32 and bf16
# RESULTS/summary.txt holds each step's verdict lines; RESULTS/logs.tar.gz
# every log, re-written after each step so a cut-off run still returns them.
#
#   bench/cuda/device_checks.sh .gpu/bundle.tar.xz RESULTS [STEP...]
#
# Environment: DEADLINE [540] seconds for all steps; PYG_PYTHON [python3];
# ROUNDS [1] and EPOCHS [10] for cuda_gcn; BENCH_DIR [/tmp/gnnc-bench].
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ARCHIVE="${1:?usage: device_checks.sh BUNDLE.tar.xz RESULTS [STEP...]}"
RESULTS="${2:?usage: device_checks.sh BUNDLE.tar.xz RESULTS [STEP...]}"
shift 2
STEPS=("$@")
((${#STEPS[@]})) || STEPS=(env unit parity gradcheck profile sampling cuda_gcn)
DEADLINE="${DEADLINE:-540}"
export PYG_PYTHON="${PYG_PYTHON:-python3}" BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
ROUNDS="${ROUNDS:-1}" EPOCHS="${EPOCHS:-10}"

mkdir -p "$RESULTS"
LOGS="$(mktemp -d)/logs"
mkdir -p "$LOGS"
SUMMARY="$RESULTS/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
snapshot() { tar -C "$(dirname "$LOGS")" -czf "$RESULTS/logs.tar.gz" logs; }

WORK="$(mktemp -d)"
# Python's tarfile: the GPU machine may have no xz.
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
  "$ARCHIVE" "$WORK" || { say "error: cannot unpack $ARCHIVE"; exit 1; }
B="$WORK/gpu-bundle"
say "bundle $(cat "$B/REVISION"), checkout $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo '?')"

# The CUDA libraries come from this machine (its toolkit, or the wheels of its
# torch); the rest from the bundle.
cuda_dirs=""
for so in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
  found="$(find /usr/local/cuda/ /usr/local/cuda/lib64/ /usr/lib/x86_64-linux-gnu /opt \
    -name "$so" -print -quit 2>/dev/null)"
  if [[ -n "$found" ]]; then
    dir="$(dirname "$found")"
    [[ ":$cuda_dirs:" == *":$dir:"* ]] || cuda_dirs="$cuda_dirs:$dir"
  fi
done
export LD_LIBRARY_PATH="${cuda_dirs#:}:$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# limit_for SECONDS: the step's limit, cut to what is left before DEADLINE.
limit_for() {
  local left=$((DEADLINE - SECONDS - 10))
  ((left < $1)) && echo "$left" || echo "$1"
}

step_env() {
  nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1
  say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader 2>&1)"
  say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  local missing
  missing="$(find "$B" -type f -perm -u+x -exec ldd {} + 2>&1 | grep 'not found' | sort -u)"
  if [[ -n "$missing" ]]; then say "env: unresolved libraries:"; say "$missing"; else say "env: every library resolves"; fi
}

step_unit() {
  local filter='Cuda*:Scan.*:SegmentSort.*:DeviceBlockBuilder.*:DeviceSampler.*'
  timeout "$(limit_for 90)" "$B/bin/RuntimeTests" --gtest_filter="$filter" \
    >"$LOGS/unit.txt" 2>&1
  say "unit: exit $?; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$LOGS/unit.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$LOGS/unit.txt" | sort -u | sed 's/^/unit: /' | tee -a "$SUMMARY"
}

# pair NAME TAG DATA EPOCHS TOLERANCE [TRAINER FLAGS...]: the CPU and the CUDA
# trainer, the same seed; their losses, test accuracy or link AUC compared.
pair() {
  local name="$1" tag="$2" data="$ROOT/examples/data/$3" epochs="$4" tol="$5"
  shift 5
  local d="$LOGS/parity/$tag" t0 t1 t2 lim
  mkdir -p "$d"
  lim="$(limit_for 90)"
  t0=$SECONDS
  timeout "$lim" "$B/cuda/$name.cpu" --data "$data" --epochs "$epochs" --seed 3 "$@" \
    --metrics "$d/cpu.jsonl" >"$d/cpu.out" 2>"$d/cpu.err"
  t1=$SECONDS
  timeout "$lim" "$B/cuda/$name.cuda" --data "$data" --epochs "$epochs" --seed 3 "$@" \
    --metrics "$d/cuda.jsonl" --stats >"$d/cuda.out" 2>"$d/cuda.err"
  local rc=$? t2=$SECONDS
  local losses accuracy=""
  losses="$(python3 "$ROOT/test/Train/compare-losses.py" "$d/cpu.jsonl" "$d/cuda.jsonl" "$tol" 2>&1 | tail -1)"
  if grep -q 'test_acc' "$d/cpu.out"; then
    accuracy="$(python3 "$ROOT/test/Train/compare-accuracy.py" "$d/cpu.out" "$d/cuda.out" test_acc 0.005 2>&1 | tail -1)"
  elif grep -q 'auc' "$d/cpu.out"; then
    accuracy="$(python3 "$ROOT/test/Distributed/same-link-auc.py" "$d/cpu.out" "$d/cuda.out" 1e-4 2>&1 | tail -1)"
  fi
  say "parity $tag: cuda exit $rc (cpu $((t1 - t0)) s, cuda $((t2 - t1)) s): $losses; $accuracy"
  ((rc == 0)) || tail -3 "$d/cuda.err" | sed "s/^/parity $tag: /" | tee -a "$SUMMARY"
}

step_parity() {
  pair gcn gcn cora 20 1e-4
  pair gcn gcn-bf16 cora 20 1e-5 --precision bf16
  pair gat gat cora 20 1e-4
  pair sage sage cora 20 1e-4
  pair sage-sampled sage-sampled cora 20 1e-4
  pair sage-sampled sage-sampled-bf16 cora 3 1e-5 --precision bf16
  pair rgcn rgcn aifb 10 1e-4
  pair gae gae cora 6 1e-5 --threads 1
  pair link-sampled link-sampled cora 3 1e-6 --threads 2
  # The README's run, on the device: its last two lines.
  pair gcn gcn-200 cora 200 1e-3
  grep -E '^(final|best_valid):' "$LOGS/parity/gcn-200/cuda.out" | sed 's/^/parity gcn-200 cuda: /' |
    tee -a "$SUMMARY"
}

step_gradcheck() {
  local f out
  mkdir -p "$LOGS/gradcheck"
  for f in "$B"/gradcheck/*; do
    out="$LOGS/gradcheck/$(basename "$f").txt"
    timeout "$(limit_for 60)" "$f" --gradcheck >"$out" 2>&1
    local rc=$?
    say "gradcheck $(basename "$f"): exit $rc, $(grep -m1 -E 'gradcheck: (PASS|FAIL)' "$out" || tail -1 "$out")"
  done
}

step_profile() {
  local ncu data="$BENCH_DIR/data/profile-sbm-n240000" m
  ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)"
  [[ -n "$ncu" ]] || { say "profile: no ncu"; return; }
  "$B/bin/gnn-data" generate --kind sbm --nodes 240000 --edges 6200000 --features 100 \
    --classes 47 --seed 1 --format npy --out "$data" >/dev/null 2>&1
  for m in gcn sage; do
    timeout "$(limit_for 60)" "$ncu" --clock-control none --metrics gpu__time_duration.sum \
      --print-units base --csv "$B/bench/$m" --data "$data" --epochs 3 >"$LOGS/profile-$m.csv" 2>"$LOGS/profile-$m.err"
    say "profile $m: exit $?"
    python3 "$ROOT/bench/cuda/kernel_times.py" "$LOGS/profile-$m.csv" | sed "s/^/profile $m: /" |
      tee -a "$SUMMARY"
  done
}

step_sampling() {
  PREBUILT="$B/bench" GNN_DATA="$B/bin/gnn-data" RUNS=3 timeout "$(limit_for 100)" \
    "$ROOT/bench/gpu_sampling.sh" >"$LOGS/gpu_sampling.txt" 2>&1
  say "sampling: exit $?"
  grep -v '^==' "$LOGS/gpu_sampling.txt" | tail -12 | sed 's/^/sampling: /' | tee -a "$SUMMARY"
  PREBUILT="$B/bench" GNN_DATA="$B/bin/gnn-data" RUNS=3 GATHER=1 timeout "$(limit_for 100)" \
    "$ROOT/bench/gpu_sampling.sh" >"$LOGS/gpu_sampling_gather.txt" 2>&1
  say "sampling (gather): exit $?"
  grep -v '^==' "$LOGS/gpu_sampling_gather.txt" | tail -12 | sed 's/^/sampling gather: /' | tee -a "$SUMMARY"
}

step_cuda_gcn() {
  PREBUILT="$B/bench" GNN_DATA="$B/bin/gnn-data" ROUNDS="$ROUNDS" EPOCHS="$EPOCHS" \
    PYG_BF16="${PYG_BF16:-0}" \
    timeout "$(limit_for 400)" "$ROOT/bench/cuda_gcn.sh" >"$LOGS/cuda_gcn.txt" 2>&1
  say "cuda_gcn: exit $?"
  grep -v '^==' "$LOGS/cuda_gcn.txt" | tail -25 | sed 's/^/cuda_gcn: /' | tee -a "$SUMMARY"
  cp -r "$BENCH_DIR"/run/cuda-* "$LOGS/" 2>/dev/null
  find "$LOGS" -type f \( -name gcn -o -name sage \) -delete
}

for s in "${STEPS[@]}"; do
  if (($(limit_for 1000) < 20)); then say "$s: skipped (DEADLINE ${DEADLINE}s reached)"; continue; fi
  say "== $s (at ${SECONDS}s)"
  "step_$s"
  snapshot
done
say "== done at ${SECONDS}s"
snapshot
