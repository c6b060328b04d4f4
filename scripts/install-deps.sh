#!/bin/sh
# Checks for the CUDA toolkit and installs the Debian packages GPMbench needs.
# As root it installs them; otherwise it prints the exact command to run.
set -eu
PKGS="libpmem-dev libpmemobj-dev librocksdb-dev libpci-dev pciutils gnuplot-nox python3 zlib1g-dev dataset-fashion-mnist"

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "install-deps: nvcc not found in PATH or $CUDA_HOME/bin: install the CUDA toolkit (12.x or 13.x) or set CUDA_HOME" >&2
    exit 1
fi

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing Debian packages:$missing; run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
