#!/usr/bin/env bash
# Installs gnnc's build and test dependencies from Debian's packages.
# Idempotent: when every package is already present it only checks (no apt-get update, no network).
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ clang libclang-rt-dev python3
  llvm-16-dev llvm-16-tools libmlir-16-dev mlir-16-tools
  antlr4 libantlr4-runtime-dev
  libmetis-dev metis libopenmpi-dev openmpi-bin libopenblas-dev zlib1g-dev
  libptscotch-dev libscotchparmetis-dev # gnn-partition --distributed: PT-Scotch's ParMETIS interface
  nlohmann-json3-dev python3-matplotlib
  libgtest-dev
  libboost-context-dev # the CUDA emulation layer: one fiber per CUDA thread
  slurmctld slurmd slurm-client # test/Distributed/slurm.test: a one-node Slurm
  iproute2 # test/Distributed/link-cut.test: hosts as network namespaces (ip netns)
)

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
