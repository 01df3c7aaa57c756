#!/usr/bin/env bash
# bench/precision_bf16.sh - mixed precision (issue 32): full-graph GCN with
# dropout 0.5 on its input (Kipf's GCN: the aggregation of a 128-wide input
# cannot be hoisted) and hidden 128, gnnc fp32 against gnnc bf16
# (--precision bf16), beside DGL's GraphConv and PyG's GCNConv (SAGEConv for
# MODEL=sage; PyG has no run for gat here) in fp32 and under
# torch.autocast("cpu", torch.bfloat16), taking turns for ROUNDS rounds.
# Prints the median epoch seconds (epochs 2..EPOCHS) and peak RSS of each.
#
#   NODES=300000 EDGES=6000000 bench/precision_bf16.sh     # 12M edges after reverse
#
#   MODEL=sage bench/precision_bf16.sh   # GraphSAGE-mean; MODEL=gat: GAT, 4 heads
#
# Environment [defaults]: MODEL [gcn], BENCH_DIR [/tmp/gnnc-bench], NODES [300000],
# EDGES [6000000], FEATURES [128], CLASSES [16], EPOCHS [6], ROUNDS [3],
# THREADS [2], DGL [1] (0 skips DGL), PYG [1] (0 skips PyG; in fp32 PyG
# multiplies by a sparse adjacency, PYG_ADJ=edge_index for message passing;
# under autocast it always passes messages, since torch's sparse CSR product
# has no bf16 kernel), GNNC, GNN_DATA.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-300000}"
EDGES="${EDGES:-6000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
EPOCHS="${EPOCHS:-6}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
DGL="${DGL:-1}"
PYG="${PYG:-1}"
PYG_ADJ="${PYG_ADJ:-sparse}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
PY="${PYTHON:-python3}"
MODEL="${MODEL:-gcn}"

NAME=precision_bf16
source "$ROOT/bench/common.sh"
[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

DATA="$(bench_graph)"
"$GNN_DATA" info --reverse --dedupe "$DATA" >/dev/null # the trainer's cache
RUN="$BENCH_DIR/run/precision-$MODEL-$(basename "$DATA")-t$THREADS"
mkdir -p "$RUN"
case "$MODEL" in
  gcn) LAYERS='c1 = GCNConv(graph.features, hidden)
  c2 = GCNConv(hidden, graph.classes)' ;;
  sage) LAYERS='c1 = SAGEConv(graph.features, hidden)
  c2 = SAGEConv(hidden, graph.classes)' ;;
  gat) LAYERS='c1 = GATConv(graph.features, 32, 4)
  c2 = GATConvMean(128, graph.classes, 1)' ;;
  *) die "MODEL: gcn, sage or gat" ;;
esac
cat >"$RUN/gcn.gnn" <<GNN
// Written by bench/precision_bf16.sh: $MODEL, hidden 128, dropout on the input.
import nn
dataset graph = npy("$DATA")
model Net(hidden: int = 128) {
  $LAYERS
  forward(g, x) { return c2(g, relu(c1(g, dropout(x, 0.5)))) }
}
train Net on graph {
  optimizer = adam(lr = 0.01)
  epochs    = $EPOCHS
  evaluate  = [valid, test] every 1000000 epochs
}
GNN
# --data: the cost model reads the real input width (gnn-reorder).
"$GNNC" "$RUN/gcn.gnn" --data "$DATA" -o "$RUN/gcn"
if [[ "$DGL" != 0 ]]; then ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"; fi
[[ "$MODEL" == gat ]] && PYG=0
if [[ "$PYG" != 0 ]]; then
  PYG_PYTHON="$BENCH_DIR/venv-dgl/bin/python"
  if ! "$PYG_PYTHON" -c "import torch, torch_geometric" 2>/dev/null; then
    ensure_venv "$BENCH_DIR/venv" "torch, torch_geometric" torch torch_geometric
    PYG_PYTHON="$BENCH_DIR/venv/bin/python"
  fi
fi

declare -A RUNS=() RSS=()
run_gnnc() { # precision round
  local out="$RUN/gnnc-$1-r$2"
  log "round $2: gnnc --precision $1"
  /usr/bin/time -f "%M" -o "$out.rss" "$RUN/gcn" --data "$DATA" --threads "$THREADS" \
    --precision "$1" --metrics "$out.jsonl" >"$out.out" 2>"$out.err" ||
    { cat "$out.err" >&2; die "the trainer failed"; }
  RUNS[gnnc-$1]+=" $("$PY" -c '
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("%.4f" % statistics.median(r["epoch_seconds"] for r in rows[1:]))' "$out.jsonl")"
  RSS[gnnc-$1]="$(( $(tail -1 "$out.rss") / 1024 ))"
}
run_dgl() { # autocast round
  local out="$RUN/dgl-$1-r$2" line
  log "round $2: DGL autocast $1"
  "$BENCH_DIR/venv-dgl/bin/python" -W ignore "$ROOT/bench/dgl_gcn.py" --data "$DATA" \
    --epochs "$EPOCHS" --threads "$THREADS" --input-dropout 0.5 --autocast "$1" --model "$MODEL" \
    >"$out.out" 2>"$out.err" || { tail -3 "$out.err" >&2; return 0; }
  line="$(grep '^dgl: nodes=' "$out.out" | tail -1)"
  RUNS[dgl-$1]+=" $(sed -n 's/.* median_epoch_s=\([^ ]*\).*/\1/p' <<<"$line")"
  RSS[dgl-$1]="$(sed -n 's/.* peak_rss_mib=\([^ ]*\).*/\1/p' <<<"$line")"
}

run_pyg() { # autocast round
  local out="$RUN/pyg-$1-r$2" line adj="$PYG_ADJ"
  [[ "$1" == bf16 ]] && adj=edge_index
  log "round $2: PyG autocast $1 ($adj)"
  "$PYG_PYTHON" -W ignore "$ROOT/bench/pyg_gcn.py" --data "$DATA" --epochs "$EPOCHS" \
    --threads "$THREADS" --input-dropout 0.5 --autocast "$1" --model "$MODEL" --adj "$adj" \
    >"$out.out" 2>"$out.err" || { tail -3 "$out.err" >&2; return 0; }
  line="$(grep 'median_epoch_s=' "$out.out" | tail -1)"
  RUNS[pyg-$1]+=" $(sed -n 's/.* median_epoch_s=\([^ ]*\).*/\1/p' <<<"$line")"
  RSS[pyg-$1]="$(sed -n 's/.* peak_rss_mib=\([^ ]*\).*/\1/p' <<<"$line")"
}

LOAD_START="$(load_avg)"
for r in $(seq 1 "$ROUNDS"); do
  run_gnnc fp32 "$r"
  run_gnnc bf16 "$r"
  if [[ "$DGL" != 0 ]]; then run_dgl none "$r"; run_dgl bf16 "$r"; fi
  if [[ "$PYG" != 0 ]]; then run_pyg none "$r"; run_pyg bf16 "$r"; fi
done
{
  echo "precision_bf16: $(basename "$DATA"), $MODEL hidden 128, input dropout 0.5, $THREADS threads, $EPOCHS epochs x $ROUNDS rounds, load $LOAD_START -> $(load_avg)"
  printf '%-12s %10s %10s  %s\n' run median_s rss_mib "per-round medians"
  for k in gnnc-fp32 gnnc-bf16 dgl-none dgl-bf16 pyg-none pyg-bf16; do
    [[ -n "${RUNS[$k]:-}" ]] || continue
    # shellcheck disable=SC2086
    printf '%-12s %10s %10s  %s\n' "$k" "$(median ${RUNS[$k]})" "${RSS[$k]}" "${RUNS[$k]}"
  done
} | tee "$BENCH_DIR/precision_bf16-$(basename "$DATA")-t$THREADS.txt"
