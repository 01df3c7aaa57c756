#!/usr/bin/env bash
# bench/gin_graphs.sh - graph-level training (issue 29): seconds per epoch of
# examples/gin_nci1.gnn's GIN (5 GIN layers with batch norm, hidden 64, a sum
# readout per layer, batches of 32 graphs, Adam) by a gnnc trainer, beside
# PyG's GINConv + global_add_pool + DataLoader (bench/pyg_gin.py, the same
# model) on the same graphs, taking turns; on 1 and 2 threads, and gnnc under
# mpirun with 1 and 2 ranks (1 thread each); and the floor of the epoch. See
# bench/README.md.
#
#   bench/gin_graphs.sh                              # NCI1 and 100k molecules
#   DATASETS=nci1 ROUNDS=5 bench/gin_graphs.sh
#   DATASETS=molecules MOLECULES=1000000 EPOCHS_MOLECULES=2 ROUNDS=1 THREADS_LIST=1 bench/gin_graphs.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, built programs, logs, results
#   DATASETS ["nci1 molecules"]  nci1: examples/data/tu/NCI1, Errica's fold 0
#                    (3328 training graphs); molecules: `gnn-data generate
#                    --kind molecules --graphs MOLECULES --seed 1`, split
#                    random (80% training)
#   MOLECULES [100000]
#   EPOCHS [6] EPOCHS_MOLECULES [3]  epochs per run; each run's figure is the
#                    median of epochs 2.. (the first is warm-up)
#   ROUNDS [3]       rounds of runs, every configuration once per round
#   THREADS_LIST ["1 2"]  thread counts, gnnc's and PyG's
#   RANKS ["1 2"]    gnnc's mpirun -np values (1 thread per rank; "" skips)
#   PYG [1]          0 skips PyG
#   WAIT_POLICY [passive]  OMP_WAIT_POLICY of both sides: with libgomp's
#                    default (active: idle threads spin), a 2-thread epoch on a
#                    loaded machine took 110 s instead of 1.5 s on either side,
#                    since every parallel region waits for a descheduled
#                    spinner; on a quiet machine try active
#   PYTHON           the python of a venv with torch and torch_geometric
#                    [BENCH_DIR/venv-dgl/bin/python if it imports both, else
#                    BENCH_DIR/venv, made by ensure_venv]
#   GNNC, GNN_DATA   the tools [build/bin/gnnc, build/bin/gnn-data]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=gin_graphs
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
DATASETS="${DATASETS:-nci1 molecules}"
MOLECULES="${MOLECULES:-100000}"
EPOCHS="${EPOCHS:-6}"
EPOCHS_MOLECULES="${EPOCHS_MOLECULES:-3}"
ROUNDS="${ROUNDS:-3}"
THREADS_LIST="${THREADS_LIST:-1 2}"
RANKS="${RANKS-1 2}"
PYG="${PYG:-1}"
export OMP_WAIT_POLICY="${WAIT_POLICY:-passive}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
source "$ROOT/bench/common.sh"
[[ -x "$GNNC" && -x "$GNN_DATA" ]] || die "build first (make)"
(( EPOCHS >= 2 && EPOCHS_MOLECULES >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
mkdir -p "$BENCH_DIR"/{data,bin,run}
# mpirun as root (containers).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LOAD_START="$(load_avg)"

if (( PYG )); then
  if [[ -z "${PYTHON:-}" ]]; then
    PYTHON="$BENCH_DIR/venv-dgl/bin/python"
    if ! "$PYTHON" -c "import torch, torch_geometric, pandas" 2>/dev/null; then
      ensure_venv "$BENCH_DIR/venv" "torch, torch_geometric, pandas" torch torch_geometric pandas
      PYTHON="$BENCH_DIR/venv/bin/python"
    fi
  fi
fi

# dataset_dir NAME: the directory of the dataset NAME (molecules generated
# once, stamped when complete).
dataset_dir() {
  case "$1" in
    nci1) echo "$ROOT/examples/data/tu/NCI1" ;;
    molecules)
      local data="$BENCH_DIR/data/molecules-g$MOLECULES-s1"
      if [[ ! -f "$data/.bench-complete" ]]; then
        rm -rf "$data"
        log "generating $MOLECULES molecules"
        "$GNN_DATA" generate --kind molecules --graphs "$MOLECULES" --seed 1 --out "$data" >&2
        touch "$data/.bench-complete"
      fi
      echo "$data" ;;
    *) die "unknown dataset $1 (nci1 or molecules)" ;;
  esac
}

# program NAME: examples/gin_nci1.gnn as it is (the same model, by
# construction), evaluated only after the last epoch and, for the molecules,
# reading OGB's graph-property layout with each bond both ways.
program() {
  local src="$ROOT/examples/gin_nci1.gnn" source='tu("NCI1")'
  grep -q '^dataset nci1 = tu("NCI1")$' "$src" && grep -q 'every 1 epochs' "$src" ||
    die "$src changed: update the edits below"
  [[ "$1" == molecules ]] && source='ogbg("molecules", add_reverse_edges = true)'
  sed -e 's/every 1 epochs/every 1000000 epochs/' \
      -e "s|^dataset nci1 = tu(\"NCI1\")\$|dataset nci1 = $source|" "$src"
}

# epoch_medians METRICS: the medians over epochs 2.. of epoch_seconds and
# epoch_cpu_seconds (rank 0's under mpirun).
epoch_medians() {
  python3 - "$1" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if "epoch_seconds" in r][1:]
print(f"{statistics.median(r['epoch_seconds'] for r in rows):.4f}",
      f"{statistics.median(r['epoch_cpu_seconds'] for r in rows):.4f}")
PY
}

TABLE=""
for name in $DATASETS; do
  data="$(dataset_dir "$name")"
  epochs="$EPOCHS"; [[ "$name" == molecules ]] && epochs="$EPOCHS_MOLECULES"
  fold=(--fold 0); [[ "$name" == molecules ]] && fold=()
  tag="$name"; [[ "$name" == molecules ]] && tag+="-g$MOLECULES"
  run="$BENCH_DIR/run/gin-$tag"
  mkdir -p "$run"
  program "$name" >"$run/gin.gnn"
  log "compiling $run/gin.gnn"
  "$GNNC" "$run/gin.gnn" -o "$run/gin" >/dev/null
  declare -A wall=() cpu=()
  for ((r = 1; r <= ROUNDS; ++r)); do
    for t in $THREADS_LIST; do
      log "$name round $r: gnnc, $t threads (load $(load_avg))"
      out="$run/gnnc-t$t-r$r"
      OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "$run/gin" --data "$data" "${fold[@]}" \
        --epochs "$epochs" --threads "$t" --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
        die "$run/gin failed: $(tail -3 "$out.err")"
      read -r w c < <(epoch_medians "$out.jsonl")
      wall[gnnc-t$t]+=" $w" cpu[gnnc-t$t]+=" $c"
      if (( PYG )); then
        log "$name round $r: PyG, $t threads (load $(load_avg))"
        out="$run/pyg-t$t-r$r"
        OMP_NUM_THREADS="$t" MKL_NUM_THREADS="$t" "$PYTHON" -W ignore "$ROOT/bench/pyg_gin.py" \
          --data "$data" --fold 0 --epochs "$epochs" --threads "$t" >"$out.out" 2>"$out.err" ||
          die "pyg_gin.py failed: $(tail -3 "$out.err")"
        line="$(grep '^pyg_gin: graphs=' "$out.out")"
        wall[pyg-t$t]+=" $(sed 's/.* median_epoch_s=\([^ ]*\).*/\1/' <<<"$line")"
        cpu[pyg-t$t]+=" $(sed 's/.* median_epoch_cpu_s=\([^ ]*\).*/\1/' <<<"$line")"
      fi
    done
    for np in $RANKS; do
      log "$name round $r: gnnc under mpirun -np $np, 1 thread each (load $(load_avg))"
      out="$run/gnnc-np$np-r$r"
      mpirun --oversubscribe -np "$np" -x OMP_NUM_THREADS=1 -x OPENBLAS_NUM_THREADS=1 -x OMP_WAIT_POLICY \
        "$run/gin" --data "$data" "${fold[@]}" --epochs "$epochs" --threads 1 \
        --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
        die "mpirun -np $np $run/gin failed: $(tail -3 "$out.err")"
      read -r w c < <(epoch_medians "$out.jsonl")
      wall[gnnc-np$np]+=" $w" cpu[gnnc-np$np]+=" $c"
    done
  done

  # The floor, from the batches gnnc packed (its --stats line) and this
  # machine's SGEMM peak and bandwidths on 1 thread: STREAM over arrays far
  # above the caches, and over three arrays of 8 MiB (about a step's
  # working set, so mostly cache-resident).
  build_floor stream
  build_floor gemm_peak -lopenblas
  bw="$("$BENCH_DIR/bin/stream" 1 2>/dev/null)"
  bw_cache="$("$BENCH_DIR/bin/stream" 1 8 2>/dev/null)"
  peak="$("$BENCH_DIR/bin/gemm_peak" 1 2>/dev/null)"
  first="$(ls "$run"/gnnc-t*-r1.out | head -1)"
  read -r steps nodes edges < <(sed -n \
    's/.*: \([0-9]*\) steps per epoch, \([0-9.]*\) nodes and \([0-9.]*\) edges per step.*/\1 \2 \3/p' "$first")
  # The training graphs of the fold, and the feature width: what the
  # trainer read (gnn-data info).
  info="$("$GNN_DATA" info "$data" 2>/dev/null || true)"
  features="$(awk '$1 == "features" {print $2; exit}' <<<"$info")"
  graphs="$(awk '$1 == "fold0" || $1 == "random" {sub(",", "", $3); print $3; exit}' <<<"$info")"
  totals=(--steps "$steps" --nodes "$(python3 -c "print($steps * $nodes)")"
          --edges "$(python3 -c "print($steps * $edges)")" --graphs "$graphs" --features "$features")
  floor_dram="$(python3 "$ROOT/bench/floor/gin_floor.py" "${totals[@]}" --bandwidth "$bw" --peak "$peak")"
  floor_cache="$(python3 "$ROOT/bench/floor/gin_floor.py" "${totals[@]}" --bandwidth "$bw_cache" --peak "$peak")"
  field() { sed -n "s/^floor:.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

  ratio() { python3 -c "import sys
try: print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}x')
except (ValueError, ZeroDivisionError): print('-')" "$1" "$2"; }
  TABLE+="
== GIN on $tag: $steps steps of 32 graphs per epoch ($graphs training graphs), $nodes nodes and
   $edges edges per step on average, $features features; $ROUNDS rounds of $epochs epochs; median
   over rounds of each run's median epoch (epochs 2..$epochs), wall and process CPU seconds
| configuration | gnnc wall s | PyG wall s | PyG / gnnc | gnnc CPU s | PyG CPU s | PyG / gnnc (CPU) |
| --- | --- | --- | --- | --- | --- | --- |"
  for t in $THREADS_LIST; do
    # shellcheck disable=SC2086 # space-separated numbers
    gw="$(median ${wall[gnnc-t$t]})" gc="$(median ${cpu[gnnc-t$t]})"
    # shellcheck disable=SC2086
    pw="$(median ${wall[pyg-t$t]:-})" pc="$(median ${cpu[pyg-t$t]:-})"
    TABLE+="
| $t thread(s) | $gw (${wall[gnnc-t$t]# }) | $pw (${wall[pyg-t$t]:-}) | $(ratio "$pw" "$gw") | $gc | $pc | $(ratio "$pc" "$gc") |"
  done
  one=""
  for np in $RANKS; do
    # shellcheck disable=SC2086
    gw="$(median ${wall[gnnc-np$np]})"
    scaling=""
    if [[ "$np" == 1 ]]; then one="$gw"; elif [[ -n "$one" ]]; then scaling="np 1 / np $np: $(ratio "$one" "$gw")"; fi
    # shellcheck disable=SC2086
    TABLE+="
| mpirun -np $np, 1 thread each | $gw (${wall[gnnc-np$np]# }) | | $scaling | $(median ${cpu[gnnc-np$np]}) (rank 0) | | |"
  done
  TABLE+="

floor of the epoch (bench/floor/gin_floor.py): $(field flops "$floor_dram") FLOP of GEMMs, $(field bytes "$floor_dram") bytes;
1 thread: SGEMM peak $peak GFLOP/s, STREAM $bw GB/s (DRAM) and $bw_cache GB/s (3 x 8 MiB arrays):
  gemm $(field gemm_s "$floor_dram") s + memory $(field mem_s "$floor_dram") s = $(field floor_s "$floor_dram") s at DRAM bandwidth,
  gemm $(field gemm_s "$floor_cache") s + memory $(field mem_s "$floor_cache") s = $(field floor_s "$floor_cache") s at the cached bandwidth
"
  unset wall cpu
done

RESULT="$BENCH_DIR/gin_graphs-$(date -u +%Y%m%dT%H%M%S).txt"
{
  echo "bench/gin_graphs.sh on $(nproc) cores, OMP_WAIT_POLICY=$OMP_WAIT_POLICY, load average at the start $LOAD_START, at the end $(load_avg)"
  echo "$TABLE"
} | tee "$RESULT"
log "saved $RESULT; logs in $BENCH_DIR/run/gin-*"
