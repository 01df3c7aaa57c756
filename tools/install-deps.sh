#!/usr/bin/env bash
# Installs gnnc's build and test dependencies from Debian's packages: all of
# them, or with `run` only what `make run` needs.
# Idempotent: when every package is already present it only checks (no apt-get update, no network).
set -euo pipefail

# What `make run` needs: build gnnc and the runtime, compile and train a CPU
# trainer. Kept to that so a bare machine reaches its first trained model
# quickly (bench/setup_time.sh).
RUN_PACKAGES=(
  cmake ninja-build ccache g++ python3
  llvm-16-dev libmlir-16-dev mlir-16-tools
  antlr4 libantlr4-runtime-dev
  libmetis-dev libopenmpi-dev openmpi-bin libopenblas-dev zlib1g-dev
  libptscotch-dev libscotchparmetis-dev # gnn-partition --distributed: PT-Scotch's ParMETIS interface
  nlohmann-json3-dev
  libboost-context-dev # the CUDA emulation layer: one fiber per CUDA thread
)
# What `make build` and `make test` add: the test tools and what the tests run.
TEST_PACKAGES=(
  llvm-16-tools # FileCheck, lit
  clang libclang-rt-dev # the fuzzers (tools/fuzz) and the sanitized CUDA emulation
  metis python3-matplotlib
  libgtest-dev
  slurmctld slurmd slurm-client # test/Distributed/slurm.test: a one-node Slurm
  iproute2 # test/Distributed/link-cut.test: hosts as network namespaces (ip netns)
)

case "${1:-all}" in
  run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
  all) PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "usage: tools/install-deps.sh [run|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
