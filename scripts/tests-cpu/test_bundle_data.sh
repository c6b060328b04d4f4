#!/bin/sh
# make bundle carries the data the workloads read by default (DNN's
# Fashion-MNIST; the others generate theirs), and the bundled programs find
# it beside them on a machine without the Debian package: the bundle is
# made from this build, then its dnn and its DNN test run with the
# installed copy hidden (GPM_FASHION_MNIST_DIR) and an empty dataset cache.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
bin=${GPM_BIN:?GPM_BIN not set}
build=$(cd "$bin/.." && pwd)
if [ ! -x "$bin/dnn" ] || [ ! -x "$build/tests/cpu/dnn_test_dnn_bundle" ]; then
    echo "skip - bundled data: no $bin/dnn or its bundle test"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-bundle-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty" "$tmp/home"
if ! "$root/scripts/make-bundle.sh" "$build" "$tmp/bundle" >"$tmp/log" 2>&1; then
    if grep -q "bundle: Fashion-MNIST's .* is neither in" "$tmp/log"; then
        echo "skip - bundled data: no Fashion-MNIST on this machine to bundle: $(head -c 300 "$tmp/log")"
    else
        echo "not ok - make-bundle.sh: $(head -c 400 "$tmp/log")"
    fi
    exit 0
fi
fm=$tmp/bundle/share/datasets/fashion-mnist
n=0
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    [ -s "$fm/$f.gz" ] && n=$((n + 1))
done
if [ "$n" -eq 4 ]; then
    echo "ok - the bundle carries Fashion-MNIST's four files in share/datasets/fashion-mnist"
else
    echo "not ok - the bundle has $n of Fashion-MNIST's four files: $(ls "$fm" 2>&1)"
fi

# hidden CMD...: CMD with no installed copy and an empty cache.
hidden() {
    env -u XDG_CACHE_HOME HOME="$tmp/home" GPM_DATA_DIR="$tmp/empty" \
        GPM_FASHION_MNIST_DIR=/nonexistent/fashion-mnist GPM_PM_DIR="$tmp/empty" "$@"
}

# The bundled DNN test reads the bundled copy.
hidden "$tmp/bundle/tests/cpu/dnn_test_dnn_bundle" >"$tmp/out" 2>&1
if grep -q "^ok - the_bundled_copy_is_found_beside_the_program$" "$tmp/out" &&
    ! grep -q -e "^not ok" -e "^skip" "$tmp/out"; then
    echo "ok - the bundled DNN test finds and reads the bundle's Fashion-MNIST"
else
    echo "not ok - the bundled DNN test: $(head -c 400 "$tmp/out")"
fi

# The bundled dnn gets past its dataset (layout() reads the headers before
# the GPU is looked for): it stops only for want of a GPU, or runs on one.
hidden "$tmp/bundle/bin/dnn" --mode gpm --scale tiny --reps 1 >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && grep -q "no NVIDIA driver or GPU visible" "$tmp/err"; }; then
    echo "ok - the bundled dnn finds its dataset without the Debian package (exit $rc)"
else
    echo "not ok - the bundled dnn: exit $rc: $(head -c 400 "$tmp/err")"
fi
# Without the bundle's copy it would have stopped at the dataset, naming
# where a bundle keeps it.
rm -rf "$tmp/bundle/share"
hidden "$tmp/bundle/bin/dnn" --mode gpm --scale tiny --reps 1 >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "Fashion-MNIST is not in /nonexistent/fashion-mnist, .*$tmp/bundle/share/datasets/fashion-mnist" "$tmp/err"; then
    echo "ok - without the bundle's copy, dnn says where it looked, the bundle's place included"
else
    echo "not ok - dnn without the bundle's copy: exit $rc: $(head -c 400 "$tmp/err")"
fi
