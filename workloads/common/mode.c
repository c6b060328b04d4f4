/* What each mode means, in one table: where kernels write, whether they
 * fence, the DDIO bracket, the CPU flusher, the engine that makes output
 * durable, and whether progress persisted during a run survives a crash.
 * (The paper's section 5: GPM, GPM-NDP, GPM-eADR, CAP-mm, CAP-fs, CAP-eADR;
 * cap-delta, the CPU-assisted design for sparse updates; the CPU counterpart
 * of its Figure 1b.) */
#include "wl.h"

static const struct wl_mode_info modes[WL_NMODES] = {
    /*                 name        pm fence ddio flush engine              durable gpu host  cp */
    [WL_GPM]      = {"gpm",      1, 1, 1, 0, WL_ENGINE_NONE,      1, 1, 0, GPMCP_GPM},
    [WL_GPM_NDP]  = {"gpm-ndp",  1, 0, 0, 1, WL_ENGINE_FLUSH,     0, 1, 0, GPMCP_GPM_NDP},
    [WL_GPM_EADR] = {"gpm-eadr", 1, 1, 0, 0, WL_ENGINE_NONE,      1, 1, 0, GPMCP_GPM_EADR},
    [WL_CAP_MM]   = {"cap-mm",   0, 0, 0, 1, WL_ENGINE_CAP_MM,    0, 1, 0, GPMCP_CAP_MM},
    [WL_CAP_FS]   = {"cap-fs",   0, 0, 0, 0, WL_ENGINE_CAP_FS,    0, 1, 1, GPMCP_CAP_FS},
    [WL_CAP_EADR] = {"cap-eadr", 0, 0, 0, 1, WL_ENGINE_CAP_EADR,  0, 1, 0, GPMCP_CAP_EADR},
    /* Beside the paper's CAP: CPU-assisted transactions, whose committed
     * batches are durable. */
    [WL_CAP_DELTA] = {"cap-delta", 0, 0, 0, 1, WL_ENGINE_DELTA,  1, 1, 0, GPMCP_CAP_MM},
    /* The CPU counterpart persists each piece before recording it done, as
     * GPM does in-kernel, so its progress is durable too. */
    [WL_CPU]      = {"cpu",      0, 0, 0, 0, WL_ENGINE_CPU,       1, 0, 1, GPMCP_CAP_MM},
};

const struct wl_mode_info *wl_mode(enum wl_mode m)
{
    return (unsigned)m < WL_NMODES ? &modes[m] : &modes[WL_GPM];
}

const char *wl_mode_name(enum wl_mode m)
{
    return (unsigned)m < WL_NMODES ? modes[m].name : "?";
}
