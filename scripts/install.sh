#!/bin/sh
# Installs libgpm for programs built outside this tree:
#   scripts/install.sh PREFIX LIBGPM VERSION [CUDA_HOME]
# PREFIX/lib/libgpm.a, PREFIX/include/gpm/*.h *.cuh (the API; not the test
# framework), and PREFIX/lib/pkgconfig/gpm.pc, so that
#   cc prog.c $(pkg-config --cflags --libs gpm)
#   nvcc kern.cu $(pkg-config --cflags --libs gpm)
# build against it (libpmem and libpci through their own .pc files; the CUDA
# runtime from CUDA_HOME). Every flag is one that both gcc and nvcc take:
# -Xlinker, not -Wl, for the rpath. make install calls this.
set -eu
[ $# -ge 3 ] || { echo "usage: scripts/install.sh PREFIX LIBGPM VERSION [CUDA_HOME]" >&2; exit 2; }
prefix=$1 lib=$2 version=$3 cuda=${4:-/usr/local/cuda}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$lib" ] || { echo "install: $lib not built: run make first" >&2; exit 1; }
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include/gpm"
cp "$lib" "$prefix/lib/libgpm.a"
for h in "$root"/libgpm/include/gpm/*.h "$root"/libgpm/include/gpm/*.cuh; do
    case ${h##*/} in check*.h) continue ;; esac # the test framework stays here
    cp "$h" "$prefix/include/gpm/"
done
cat >"$prefix/lib/pkgconfig/gpm.pc" <<EOT
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
cudadir=$cuda

Name: gpm
Description: libgpm: GPU kernels that write and persist persistent memory (GPMbench)
Version: $version
Requires: libpmem libpci
Cflags: -I\${includedir} -I\${cudadir}/include -D_GNU_SOURCE
Libs: -L\${libdir} -lgpm -L\${cudadir}/lib64 -Xlinker -rpath=\${cudadir}/lib64 -lcudart -lstdc++ -lgomp -lpthread -ldl -lrt -lm
EOT
echo "install: libgpm $version in $prefix (pkg-config: PKG_CONFIG_PATH=$prefix/lib/pkgconfig)"
