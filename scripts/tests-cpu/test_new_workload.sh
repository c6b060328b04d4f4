#!/bin/sh
# A new workload needs only its own folder: in a copy of the sources, a
# workload written as workloads/README.md says (a descriptor, a kernel, a
# CPU reference, a layout) is found by the Makefile, built with no other
# file touched, runs, verifies and writes its row in cpu mode, and offers
# every mode its descriptor names. The build reuses the objects of this
# build's library and harness.
set -u
. "$(dirname "$0")/sources.sh"
need_sources new_workload Makefile workloads/common/wl.h
build=$(cd "${GPM_BIN:-$root/build/bin}/.." && pwd)
if [ ! -f "$build/libharness.a" ] || [ ! -f "$root/libgpm/libgpm.a" ]; then
    echo "skip - new_workload: no built harness in $build (make all first)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The sources, and the built library and harness, times kept: make rebuilds
# only what the new folder adds.
(cd "$root" && tar -cf - --exclude=./build --exclude=./bundle --exclude=./.git \
    --exclude='./.gpu*' --exclude=./results --exclude=./reports .) | (cd "$tmp" && tar -xf -)
mkdir -p "$tmp/build"
(cd "$build" && tar -cf - git-rev libgpm/src libharness.a workloads/common) |
    (cd "$tmp/build" && tar -xf -)
w=$tmp/workloads/squares
mkdir -p "$w"
cat >"$w/squares.h" <<'EOF'
/* Squares: out[i] = i * i + seed, for i < n, in one region. */
#ifndef SQUARES_H
#define SQUARES_H
#include "gpm/hd.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#ifdef __cplusplus
extern "C" {
#endif
GPM_HD uint32_t squares_value(uint64_t i, uint64_t seed)
{
    return (uint32_t)(i * i + seed);
}
int squares_gpu(uint32_t *out, uint64_t n, uint64_t seed, wl_out o);
int squares_verify(struct wl_ctx *c);
#ifdef __cplusplus
}
#endif
#endif
EOF
cat >"$w/squares_kernels.cu" <<'EOF'
#include "squares.h"
#include "wl.cuh"
__global__ void squares_kernel(uint32_t *out, uint64_t n, uint64_t seed, wl_out o)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i < n)
        wl_store_u32(o, &out[i], squares_value(i, seed));
    wl_persist(o);
}
int squares_gpu(uint32_t *out, uint64_t n, uint64_t seed, wl_out o)
{
    squares_kernel<<<(unsigned)((n + 255) / 256), 256>>>(out, n, seed, o);
    return wl_dev_sync("squares_kernel");
}
EOF
cat >"$w/squares.c" <<'EOF'
#include "squares.h"
static const struct wl_param params[] = {
    {.flag = "n", .help = "squares", .sizes = 1, .scale = {1024, 1 << 20, 1 << 26}, .min = 1,
     .max = 1 << 28},
    {0},
};
static const struct wl_obj_decl objects[] = {{"out", WL_OBJ_REGION}, {NULL, WL_OBJ_REGION}};
static uint64_t n_of(struct wl_ctx *c) { return (uint64_t)wl_int(c, "n"); }
static int layout(struct wl_ctx *c)
{
    wl_obj_region(c, 0, n_of(c) * 4);
    c->data_bytes = c->calib_bytes = n_of(c) * 4;
    c->expected_s = 0.01;
    return 0;
}
static int run(struct wl_ctx *c)
{
    uint32_t *out = wl_region(c, 0)->host, *dev = wl_pm_dev(c, 0), *d = dev;
    gpm_range all = {0, n_of(c) * 4, NULL};
    if (!c->m->needs_gpu)
        for (uint64_t i = 0; i < n_of(c); i++)
            out[i] = squares_value(i, wl_seed(c));
    else if ((!d && wl_dev_alloc((void **)&d, n_of(c) * 4) != 0) ||
             squares_gpu(d, n_of(c), wl_seed(c), wl_out_of(c)) != 0)
        return -1;
    all.src = dev ? NULL : d;
    int rc = wl_commit(c, 0, &all, 1);
    if (!dev)
        wl_dev_free(d);
    return rc;
}
const struct wl_workload WORKLOAD = {
    .name = "squares", .about = "a workload added in one folder",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU), .progress_by = WL_BY_COMMITS,
    .objects = objects, .params = params, .layout = layout, .run = run,
    .verify = squares_verify,
};
EOF
cat >"$w/squares_ref.c" <<'EOF'
#include <stdlib.h>
#include "squares.h"
int squares_verify(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)wl_int(c, "n");
    uint32_t *want = malloc(n * 4);
    struct wl_wrong w = {.units = "squares"};
    int rc;
    if (!want)
        return gpm_set_error("squares: out of memory"), -1;
    for (uint64_t i = 0; i < n; i++)
        want[i] = squares_value(i, wl_seed(c));
    rc = wl_check_u32("squares", wl_region(c, 0)->host, want, n, &w);
    if (rc == 1)
        wl_note_wrong(c, &w);
    free(want);
    return rc;
}
EOF
if ! (cd "$tmp" && make --no-print-directory build/bin/squares) >"$tmp/make.log" 2>&1; then
    echo "not ok - a workload in a folder of its own builds with no other file touched"
    tail -5 "$tmp/make.log" | sed 's/^/#   /'
    exit 0
fi
echo "ok - a workload in a folder of its own builds with no other file touched"
mkdir -p "$tmp/pm"
if "$tmp/build/bin/squares" --mode cpu --scale tiny --pm-dir "$tmp/pm" --reps 1 \
    --out "$tmp/rows.tsv" >/dev/null 2>"$tmp/err" && grep -q "	squares	run	cpu	tiny	.*	ok	" "$tmp/rows.tsv"; then
    echo "ok - the new workload runs, verifies and writes its row in cpu mode"
else
    echo "not ok - the new workload did not run and verify in cpu mode: $(head -c 300 "$tmp/err")"
fi
modes=$("$tmp/build/bin/squares" --help | sed -n 's/^usage: squares --mode \([^ ]*\).*/\1/p')
if [ "$modes" = "gpm|gpm-ndp|gpm-eadr|cap-mm|cap-fs|cap-eadr|cpu|none|cap-gds" ]; then
    echo "ok - the new workload offers every mode of its descriptor"
else
    echo "not ok - the new workload offers '$modes'"
fi
