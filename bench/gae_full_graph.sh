#!/usr/bin/env bash
# bench/gae_full_graph.sh - full-graph link prediction (GAE, examples/
# gae_cora.gnn's model) on a generated graph: gnnc's epoch against PyG's GAE
# example step (GCNConv encoder, InnerProductDecoder, recon_loss with
# negative_sampling) on the same split, which `gnn-data link-split` writes,
# the two taking turns for ROUNDS rounds. See bench/README.md.
#
#   bench/gae_full_graph.sh                        # 300k nodes, 6M edges, 128 features
#   NODES=20000 EDGES=200000 bench/gae_full_graph.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the peers' venv, built programs, results
#   NODES [300000] EDGES [6000000] FEATURES [128]
#   EPOCHS [6]    epochs per run on each side (the median leaves out the first)
#   ROUNDS [3]    rounds of runs, gnnc and PyG in turn
#   THREADS [2]   OpenMP / BLAS / torch threads
#   GNNC, GNN_DATA     the tools [build/bin/gnnc, build/bin/gnn-data]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-300000}"
EDGES="${EDGES:-6000000}"
FEATURES="${FEATURES:-128}"
CLASSES=16
EPOCHS="${EPOCHS:-6}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
PY="${PYTHON:-python3}"

NAME=gae_full_graph
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"

mkdir -p "$BENCH_DIR"/{data,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
RUN="$BENCH_DIR/run/gae-$TAG-t${THREADS}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/gae_full_graph-$TAG-t${THREADS}.txt"
LOAD_START="$(load_avg)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

#--- 1. The graph, its split, the peers' environment ---------------------------
DATA="$(bench_graph)"
SPLIT="$BENCH_DIR/data/$TAG-links-s0"
if [[ ! -f "$SPLIT/.bench-complete" ]]; then
  rm -rf "$SPLIT"
  log "writing the link split of $TAG (seed 0, valid 0.05, test 0.10)"
  "$GNN_DATA" link-split "$DATA" --out "$SPLIT" --seed 0 --valid 0.05 --test 0.10 >&2
  touch "$SPLIT/.bench-complete"
fi
ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl, torch_geometric" "${DGL_PACKAGES[@]}" torch_geometric
VPY="$BENCH_DIR/venv-dgl/bin/python"

#--- 2. gnnc's program: examples/gae_cora.gnn on the generated graph ------------
sed -e "s|dataset cora = ogb(\"cora\")|dataset cora = npy(\"$DATA\")|" \
  -e "s|epochs     = 200|epochs     = $EPOCHS|" \
  -e "s|every 10 epochs|every 1000000 epochs|" "$ROOT/examples/gae_cora.gnn" >"$RUN/gae.gnn"
log "compiling $RUN/gae.gnn"
"$GNNC" "$RUN/gae.gnn" --data "$DATA" -o "$RUN/gae"

#--- 3. Rounds: gnnc, PyG, in turn ---------------------------------------------
OURS="" PEER="" PEER_LINE=""
for ((r = 1; r <= ROUNDS; ++r)); do
  out="$RUN/gnnc-r$r"
  log "round $r: gnnc ($EPOCHS epochs, $THREADS threads)"
  /usr/bin/time -f "%M" -o "$out.rss" "$RUN/gae" --data "$DATA" --threads "$THREADS" \
    --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
    { cat "$out.err" >&2; die "the trainer failed"; }
  OURS+=" $(median_epoch "$out.jsonl")"
  out="$RUN/pyg-r$r"
  log "round $r: PyG GAE ($EPOCHS epochs, $THREADS threads)"
  "$VPY" -W ignore "$ROOT/bench/pyg_gae.py" --data "$DATA" --split "$SPLIT" \
    --epochs "$EPOCHS" --threads "$THREADS" >"$out.out" 2>"$out.err" ||
    { tail -3 "$out.err" >&2; die "PyG failed"; }
  PEER_LINE="$(grep '^pyg: nodes=' "$out.out" | tail -1)"
  PEER+=" $(sed -n 's/.* median_epoch_s=\([^ ]*\).*/\1/p' <<<"$PEER_LINE")"
done
# shellcheck disable=SC2086 # space-separated numbers
OURS_S="$(median $OURS)"
# shellcheck disable=SC2086
PEER_S="$(median $PEER)"

{
  echo "GAE (2-layer GCN 32 -> 16, inner-product decoder, one uniform negative per train link,"
  echo "Adam), full graph: $NODES nodes, $EDGES generated edges as undirected links split"
  echo "85/5/10 at seed 0 (the same pairs on both sides), $FEATURES features, $THREADS threads."
  echo "$ROUNDS rounds of gnnc then PyG; each figure is the median over rounds of a run's median"
  echo "epoch (epochs 2..$EPOCHS). Load average at start $LOAD_START, end $(load_avg)."
  echo
  grep -E '^(final|stats: links)' "$RUN/gnnc-r1.out" | sed 's/^/gnnc /' || true
  echo "$PEER_LINE"
  echo
  printf '%-24s %10s  %s\n' "" "s/epoch" "runs"
  printf '%-24s %10s  %s\n' "gnnc" "$OURS_S" "${OURS# } (peak RSS $(( $(tail -1 "$RUN/gnnc-r1.rss") / 1024 )) MiB)"
  printf '%-24s %10s  %s\n' "PyG" "$PEER_S" "${PEER# }"
  printf '%-24s %10s  %s\n' "speedup PyG / gnnc" "$(ratio "$PEER_S" "$OURS_S")" "goal: at least 3x"
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
