#!/bin/sh
# libgpm as a library others build on: installed into a temporary PREFIX, a
# small program outside the tree compiles and links against it through
# pkg-config alone, and runs (it maps a PM file host-only, persists, and
# reads an error message back: no GPU needed); so does a CUDA program,
# built by nvcc with the same flags (its kernel runs where there is a GPU).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
lib=$root/libgpm/libgpm.a # where make builds it
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-install-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$root/scripts/install.sh" "$tmp/prefix" "$lib" 0.0-test >"$tmp/log" 2>&1; then
    echo "not ok - install: $(cat "$tmp/log")"
    exit 0
fi
for f in lib/libgpm.a include/gpm/gpm.h include/gpm/gpm.cuh include/gpm/tx.h lib/pkgconfig/gpm.pc; do
    [ -f "$tmp/prefix/$f" ] || echo "not ok - install: no $f"
done
if [ -e "$tmp/prefix/include/gpm/check.h" ]; then
    echo "not ok - install: the test framework was installed"
else
    echo "ok - install: library, headers and gpm.pc in PREFIX"
fi
cat >"$tmp/prog.c" <<'EOT'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gpm/gpm.h>
#include <gpm/redo.h>
int main(int argc, char **argv)
{
    gpm_region r;
    if (argc != 2 || gpm_map(&r, argv[1], 4096, GPM_CREATE | GPM_HOST_ONLY) != 0)
        return 1;
    strcpy(r.host, "persisted");
    if (gpm_region_persist(&r, r.host, 10) != 0)
        return 2;
    /* The redo log's code (OpenMP inside) links too. */
    if (gpm_redo_init(&r, 16, 100) != 0 || gpm_redo_committed(&r) != 0)
        return 3;
    gpm_unmap(&r);
    unlink(argv[1]);
    gpm_set_error("installed %d", 42);
    printf("%s\n", gpm_last_error());
    return 0;
}
EOT
flags=$(PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig pkg-config --cflags --libs gpm 2>&1) || {
    echo "not ok - pkg-config gpm: $flags"
    exit 0
}
echo "ok - pkg-config gpm: $flags" | head -c 300
echo
# shellcheck disable=SC2086 # flags is a list
if ! cc -std=c11 -o "$tmp/prog" "$tmp/prog.c" $flags >"$tmp/cc.log" 2>&1; then
    echo "not ok - a program outside the tree builds against the installed libgpm: $(head -c 400 "$tmp/cc.log")"
    exit 0
fi
echo "ok - a program outside the tree builds against the installed libgpm"
out=$("$tmp/prog" "$tmp/pm-file" 2>&1)
if [ "$out" = "installed 42" ]; then
    echo "ok - and runs: maps, persists, reports"
else
    echo "not ok - the installed program ran: '$out'"
fi

# The same flags with nvcc: a library for CUDA kernels links with it.
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
if [ ! -x "$nvcc" ]; then
    echo "skip - nvcc builds a kernel against the installed libgpm: no $nvcc (set NVCC)"
    exit 0
fi
cat >"$tmp/kern.cu" <<'EOT'
#include <stdio.h>
#include <cuda_runtime.h>
#include <gpm/gpm.cuh>
__global__ void put(uint32_t *p)
{
    gpm_store_u32(p + threadIdx.x, threadIdx.x + 1);
    gpm_persist();
}
int main(void)
{
    uint32_t *d, h[32];
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        gpm_set_error("no GPU");
        printf("%s\n", gpm_last_error());
        return 0;
    }
    if (cudaMalloc(&d, sizeof h) != cudaSuccess)
        return 1;
    put<<<1, 32>>>(d);
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 2;
    for (int i = 0; i < 32; i++)
        if (h[i] != (uint32_t)i + 1)
            return 3;
    printf("kernel ok\n");
    return 0;
}
EOT
# shellcheck disable=SC2086 # flags is a list
if ! "$nvcc" -o "$tmp/kern" "$tmp/kern.cu" $flags >"$tmp/nvcc.log" 2>&1; then
    echo "not ok - nvcc builds a kernel against the installed libgpm: $(head -c 400 "$tmp/nvcc.log")"
    exit 0
fi
echo "ok - nvcc builds a kernel against the installed libgpm with pkg-config's flags"
out=$("$tmp/kern" 2>&1)
case $out in
    "kernel ok" | "no GPU") echo "ok - and the CUDA program runs: $out" ;;
    *) echo "not ok - the CUDA program ran: '$out'" ;;
esac
