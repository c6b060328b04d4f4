#!/bin/sh
# Makes a relocatable folder: programs, tests, scripts, the data they read
# by default (DNN's Fashion-MNIST) and every shared library they load
# except the C library and the CUDA driver, which come with the target
# machine. Binaries carry an $ORIGIN-relative rpath, so
# the folder runs wherever it is copied.
#   scripts/make-bundle.sh BUILD_DIR OUT_DIR
set -eu
build=$1
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"
mkdir -p "$out/lib" "$out/tests"
mkdir -p "$out/bin"; cp -r "$build/bin/." "$out/bin/" 2>/dev/null || true
cp -r "$build/tests/cpu" "$build/tests/gpu" "$out/tests/" 2>/dev/null || true
# Host debug information is most of each program's size and is not needed
# to run it (symbols stay, so backtraces still name functions).
find "$out/bin" "$out/tests" -type f -perm -u+x -exec strip --strip-debug {} +
mkdir -p "$out/reports"
cp -r "$root/scripts" "$out/scripts"
[ -d "$root/reports/paper" ] && cp -r "$root/reports/paper" "$out/reports/paper"
[ -d "$root/datasets" ] && cp -r "$root/datasets" "$out/datasets"
# DNN's default dataset, Fashion-MNIST (four .gz files, 30 MB), which the
# target may lack (Debian's dataset-fashion-mnist): from that package here,
# else from the copies datasets/fetch.sh put in the dataset cache. The
# programs look for it in share/datasets/fashion-mnist above their folder
# (dnn_fashion_dirs). Every other workload generates its default input.
fm=$out/share/datasets/fashion-mnist
fm_src=${GPM_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
cache=${GPM_DATA_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gpmbench}
mkdir -p "$fm"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    if [ -f "$fm_src/$f.gz" ]; then
        cp "$fm_src/$f.gz" "$fm/"
    elif [ -f "$cache/fashion-mnist-$f.gz" ]; then
        cp "$cache/fashion-mnist-$f.gz" "$fm/$f.gz"
    else
        echo "bundle: Fashion-MNIST's $f.gz (DNN's default dataset) is neither in $fm_src nor in $cache: install dataset-fashion-mnist (make deps), or fetch it: for f in train-images train-labels t10k-images t10k-labels; do datasets/fetch.sh fashion-mnist-\$f; done" >&2
        exit 1
    fi
done
# Recorded lspci dumps: the DDIO tests read them.
mkdir -p "$out/libgpm/tests" && cp -r "$root/libgpm/tests/fixtures" "$out/libgpm/tests/fixtures"
# Libraries the glibc of any Linux provides, and the driver, stay behind;
# so do cuDNN and cuBLAS (DNN's): about a gigabyte with the parts cuDNN
# loads itself, they come with the target's CUDA installation.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libcuda\.so|libcudnn|libcublas)'
find "$out/bin" "$out/tests" -type f -perm -u+x | while read -r f; do
    ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
    echo "$name" | grep -Eq "$skip" && continue
    cp -L "$path" "$out/lib/$name"
done
# libcufile (GPUDirect Storage, cap-gds) is opened at run time, so ldd does
# not list it: it comes along where this toolkit has it; elsewhere cap-gds
# finds the target's own (libgpm/src/gds.c says where it looks).
gds=${CUDA_HOME:-/usr/local/cuda}/lib64/libcufile.so.0
if [ -f "$gds" ]; then
    cp -L "$gds" "$out/lib/libcufile.so.0"
else
    echo "bundle: no $gds here: cap-gds will use the target's libcufile, where it has one"
fi
echo "bundle: $out ($(ls "$out/lib" | wc -l) libraries, $(ls "$out/bin" | wc -l) programs)"
