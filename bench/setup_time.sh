#!/usr/bin/env bash
# bench/setup_time.sh - `make run` on a bare Debian 12 (issue 30): a minbase
# bookworm root made by debootstrap (no compiler, no make, empty apt and
# ccache caches, no CUDA), the repository's HEAD exported into it, then inside
# a chroot `apt-get install make` (a bare image has no make: not counted) and
# the README's `make run`, timed to its final line. Each output line of
# `make run` is stamped, so the phases (apt, configure, build, gnnc, training)
# are read off one run. See bench/README.md, *Set-up time*.
#
#   bench/setup_time.sh            # needs root, debootstrap and the network
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  the cached minbase root and the runs' roots
#   RUNS [1]                     fresh roots, one `make run` each
#   REV [HEAD]                   the commit exported into the root
#   MIRROR [http://deb.debian.org/debian]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=setup_time
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
RUNS="${RUNS:-1}"
REV="${REV:-HEAD}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
source "$ROOT/bench/common.sh"
[[ "$(id -u)" -eq 0 ]] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "needs debootstrap (apt-get install debootstrap)"

WORK="$BENCH_DIR/run/$NAME"
BASE="$WORK/base"
mkdir -p "$WORK"
if [[ ! -x "$BASE/usr/bin/apt-get" ]]; then
  echo "setup_time: debootstrap --variant=minbase bookworm (once, not timed)"
  rm -rf "$BASE"
  debootstrap --variant=minbase bookworm "$BASE" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    die "debootstrap failed: $WORK/debootstrap.log"
fi

mounted=()
unmount_all() {
  local m
  for ((i = ${#mounted[@]} - 1; i >= 0; --i)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap unmount_all EXIT

now() { date +%s.%N; }
for ((run = 1; run <= RUNS; ++run)); do
  root="$WORK/root-$run"
  rm -rf "$root"
  cp -a "$BASE" "$root"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mkdir -p "$root/src"
  git -C "$ROOT" archive "$REV" | tar -x -C "$root/src"
  for fs in proc sys dev dev/pts; do
    mount --bind "/$fs" "$root/$fs"
    mounted+=("$root/$fs")
  done
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make' \
    >"$WORK/make-install-$run.log" 2>&1 || die "apt-get install make failed: $WORK/make-install-$run.log"
  log="$WORK/make-run-$run.log"
  t0="$(now)"
  # Each line stamped with the seconds since the start of `make run`.
  status=0
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    bash -c 'cd /src && make run' 2>&1 |
    while IFS= read -r line; do printf '%8.1f %s\n' "$(echo "$(now) - $t0" | bc)" "$line"; done >"$log" ||
    status=$?
  t1="$(now)"
  unmount_all
  [[ "$status" -eq 0 ]] || { tail -20 "$log" >&2; die "make run failed ($status): $log"; }
  # Phase boundaries: the first line of each phase's output.
  phase() { awk -v pat="$1" '$0 ~ pat { print $1; exit }' "$log"; }
  configure="$(phase 'cmake -S')"
  build="$(phase 'cmake --build')"
  gnnc="$(phase 'bin/gnnc examples')"
  train="$(phase 'gcn_cora --data')"
  printf 'run %d: make run %.1f s (apt until %s s, configure until %s s, build until %s s, gnnc until %s s, then training); %s\n' \
    "$run" "$(echo "$t1 - $t0" | bc)" "$configure" "$build" "$gnnc" "$train" "$(tail -2 "$log" | head -1 | cut -c10-)"
  rm -rf "$root"
done
