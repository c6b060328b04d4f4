/* What each mode means, in one table: where kernels write, whether they
 * fence, the DDIO bracket, the CPU flusher, the engines that make output
 * durable (wl_commit) and a transaction's batch failure-atomic, and whether
 * what kernels mark done as they go is durable at once. The first six rows
 * are the paper's section 5; the comments above the others say what they
 * are. A new mode is one more row (wl_mode_add), and its engines where it
 * needs new ones. */
#include <string.h>

#include "gpm/persistency.h"
#include "harness.h"

static struct wl_mode_info modes[WL_MAX_MODES] = {
    /*                 name        pm fence ddio flush commit               tx                   durable gpu host cp, like, model */
    [WL_GPM]      = {"gpm",      1, 1, 1, 0, &wl_commit_kernels,  &wl_tx_undo_fenced,  1, 1, 0, GPMCP_GPM, WL_GPM},
    [WL_GPM_NDP]  = {"gpm-ndp",  1, 0, 0, 1, &wl_commit_flush,    &wl_tx_undo_flushed, 0, 1, 0, GPMCP_GPM_NDP, WL_GPM_NDP, GPM_MODEL_NDP},
    [WL_GPM_EADR] = {"gpm-eadr", 1, 1, 0, 0, &wl_commit_kernels,  &wl_tx_undo_fenced,  1, 1, 0, GPMCP_GPM_EADR, WL_GPM_EADR, GPM_MODEL_EADR},
    [WL_CAP_MM]   = {"cap-mm",   0, 0, 0, 1, &wl_commit_cap_mm,   &wl_tx_cap_chunks,   0, 1, 0, GPMCP_CAP_MM, WL_CAP_MM},
    [WL_CAP_FS]   = {"cap-fs",   0, 0, 0, 0, &wl_commit_cap_fs,   &wl_tx_cap_chunks,   0, 1, 1, GPMCP_CAP_FS, WL_CAP_FS},
    [WL_CAP_EADR] = {"cap-eadr", 0, 0, 0, 1, &wl_commit_cap_eadr, &wl_tx_cap_chunks,   0, 1, 0, GPMCP_CAP_EADR, WL_CAP_EADR, GPM_MODEL_EADR},
    /* Beside the paper's CAP: CPU-assisted transactions for sparse updates,
     * through a redo log; what else it persists goes as in cap-mm. */
    [WL_CAP_DELTA] = {"cap-delta", 0, 0, 0, 1, &wl_commit_cap_mm, &wl_tx_redo_cpu,     0, 1, 0, GPMCP_CAP_MM, WL_CAP_DELTA},
    /* The CPU counterpart (Figure 1b) persists each piece before recording
     * it done, as GPM does in-kernel, so what it marks done is durable too. */
    [WL_CPU]      = {"cpu",      0, 0, 0, 0, &wl_commit_flush,    &wl_tx_undo_cpu,     1, 0, 1, GPMCP_CAP_MM, WL_CPU},
    /* None, the persistence roofline's volatile baseline: what the
     * computation alone costs. Output stays in device memory; it reaches
     * the mapping only for verification, by copies whose time the harness
     * leaves out (cp_how: how they go). */
    [WL_NONE]     = {"none",     0, 0, 0, 0, &wl_commit_volatile, &wl_tx_volatile,     0, 1, 0, GPMCP_CAP_EADR, WL_NONE},
    /* What a user would pick today to make GPU data durable in a file:
     * GPUDirect Storage in place of CAP-fs's staging; the rest as CAP-fs. */
    [WL_CAP_GDS]  = {"cap-gds",  0, 0, 0, 0, &wl_commit_cap_gds,  &wl_tx_cap_chunks,   0, 1, 1, GPMCP_CAP_FS, WL_CAP_GDS},
};
static int nmodes = WL_NMODES;

const struct wl_mode_info *wl_mode(enum wl_mode m)
{
    return (unsigned)m < (unsigned)nmodes ? &modes[m] : &modes[WL_GPM];
}

const char *wl_mode_name(enum wl_mode m)
{
    return (unsigned)m < (unsigned)nmodes ? modes[m].name : "?";
}

int wl_mode_by_name(const char *name)
{
    for (int m = 0; m < nmodes; m++)
        if (strcmp(name, modes[m].name) == 0)
            return m;
    return -1;
}

int wl_mode_add(const struct wl_mode_info *row)
{
    if (!row || !row->name || !row->commit || !row->tx || (unsigned)row->like >= WL_NMODES)
        return gpm_set_error("wl_mode_add: a row needs a name, a commit and a transaction "
                             "engine, and a built-in mode it is like");
    if (wl_mode_by_name(row->name) >= 0)
        return gpm_set_error("wl_mode_add: mode '%s' exists: choose another name", row->name);
    if (nmodes == WL_MAX_MODES)
        return gpm_set_error("wl_mode_add: the table holds %d modes", WL_MAX_MODES);
    modes[nmodes] = *row;
    return nmodes++;
}

int wl_runs_mode(const struct wl_workload *w, enum wl_mode m)
{
    return (unsigned)m < (unsigned)nmodes &&
           ((m < WL_NMODES && (w->modes & WL_MODE_BIT(m))) ||
            (m >= WL_NMODES && (w->modes & WL_MODE_BIT(modes[m].like))));
}

int wl_resumable(const struct wl_workload *w, enum wl_mode m)
{
    const struct wl_mode_info *i = wl_mode(m);
    if (i->commit->nothing_durable)
        return 0; /* nothing is durable */
    switch (w->progress_by) {
    case WL_BY_COMMITS: return 1;
    case WL_BY_TRANSACTIONS: return i->tx->atomic;
    case WL_BY_MARKERS_OR_TX: return wl_batches_in_tx(i) ? i->tx->atomic : i->durable_progress;
    default: return i->durable_progress;
    }
}

int wl_batches_in_tx(const struct wl_mode_info *m)
{
    return !m->durable_progress && !m->commit->nothing_durable;
}

int wl_resumes(const struct wl_workload *w, enum wl_mode written, enum wl_mode m)
{
    if (!wl_resumable(w, written) || !wl_resumable(w, m))
        return 0;
    /* Markers and transactions keep their progress in different places. */
    return w->progress_by != WL_BY_MARKERS_OR_TX ||
           wl_batches_in_tx(wl_mode(written)) == wl_batches_in_tx(wl_mode(m));
}
