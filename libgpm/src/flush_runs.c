/* The slicing of a vectored flush: scattered ranges become runs that share
 * no cache line, and the runs' lines are shared out among the flushing
 * threads as if they were one range. Pure functions: no I/O, no state. */
#include <stdint.h>
#include <stdlib.h>

#include "gpm/cap.h"

static uint64_t line_of(uintptr_t a)
{
    return (uint64_t)(a / GPM_CACHE_LINE);
}

/* Cache lines that [lo, hi) touches (hi > lo). */
static uint64_t lines_of(uintptr_t lo, uintptr_t hi)
{
    return line_of(hi - 1) - line_of(lo) + 1;
}

static int by_address(const void *a, const void *b)
{
    const gpm_flush_run *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

int gpm_flush_runs(uintptr_t base, const gpm_range *v, int n, gpm_flush_run *runs,
                   uint64_t *lines)
{
    int m = 0, sorted = 1, out = 0;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].len == 0)
            continue;
        runs[m].lo = base + v[i].off;
        runs[m].hi = runs[m].lo + v[i].len;
        runs[m].line0 = 0;
        if (m > 0 && runs[m].lo < runs[m - 1].lo)
            sorted = 0;
        m++;
    }
    /* Workloads mostly list their ranges in order: no sort needed then. */
    if (!sorted)
        qsort(runs, (size_t)m, sizeof *runs, by_address);
    for (int i = 0; i < m; i++) {
        /* Sorted: a run that starts on or before the last line of the
         * current one shares that line (or overlaps): it joins it. */
        if (out > 0 && line_of(runs[i].lo) <= line_of(runs[out - 1].hi - 1)) {
            if (runs[i].hi > runs[out - 1].hi)
                runs[out - 1].hi = runs[i].hi;
            continue;
        }
        runs[out++] = runs[i];
    }
    for (int i = 0; i < out; i++) {
        runs[i].line0 = total;
        total += lines_of(runs[i].lo, runs[i].hi);
    }
    *lines = total;
    return out;
}

/* Line K*LINES/NS, rounded down, without overflowing LINES*K. */
static uint64_t boundary(uint64_t lines, uint64_t ns, uint64_t k)
{
    return (lines / ns) * k + (lines % ns) * k / ns;
}

int gpm_flush_runs_slice(const gpm_flush_run *runs, int nruns, uint64_t lines, int nslices,
                         int idx, gpm_flush_piece_fn fn, void *arg)
{
    uint64_t l0, l1;
    int lo = 0, hi;
    if (nruns < 1 || lines == 0 || nslices < 1 || idx < 0 || idx >= nslices)
        return 0;
    l0 = boundary(lines, (uint64_t)nslices, (uint64_t)idx);
    l1 = boundary(lines, (uint64_t)nslices, (uint64_t)idx + 1);
    if (l0 >= l1)
        return 0;
    /* The last run whose first line is at or before L0. */
    hi = nruns - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (runs[mid].line0 <= l0)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (int i = lo; i < nruns && runs[i].line0 < l1; i++) {
        const gpm_flush_run *r = &runs[i];
        uint64_t n = lines_of(r->lo, r->hi);
        uint64_t a = l0 > r->line0 ? l0 - r->line0 : 0;
        uint64_t b = l1 - r->line0 < n ? l1 - r->line0 : n;
        uintptr_t first = (uintptr_t)line_of(r->lo) * GPM_CACHE_LINE;
        uintptr_t s = first + (uintptr_t)a * GPM_CACHE_LINE;
        uintptr_t e = first + (uintptr_t)b * GPM_CACHE_LINE;
        int rc;
        if (a >= b)
            continue;
        if (s < r->lo)
            s = r->lo;
        if (e > r->hi)
            e = r->hi;
        if (e > s && (rc = fn(arg, s, (size_t)(e - s))) != 0)
            return rc;
    }
    return 0;
}
