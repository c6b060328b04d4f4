/* Inside the harness: what driver.c, objects.c, persist.c and crash.c share
 * and workloads do not see. */
#ifndef WL_HARNESS_H
#define WL_HARNESS_H

#include "identity.h"
#include "wl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The identity file of a run and what opening the objects found. */
struct wl_run {
    gpm_region id;           /* W-TAG.id, mapped host-only */
    int id_lock;
    int id_created;
    int cur;                 /* slot holding the current identity, -1: none valid */
    struct wl_identity found; /* the identity the run started from (valid if found_valid) */
    int found_valid;
    int locked;              /* every file of the run is ours: safe to remove what we made */
    char tag[64];            /* "small", or "custom-<hash>" */
    char params[WL_ID_PARAMS];
};

/* Opens, locks and checks (--recover) or creates and resets (a new run)
 * the identity and every declared object, before any device allocation.
 * On failure removes what it created. */
int wl_objects_open(struct wl_ctx *c, struct wl_run *run);
/* Writes the identity with STATE and c->epoch (and the current mode). */
int wl_identity_write(struct wl_ctx *c, struct wl_run *run, enum wl_id_state state);
enum wl_files { WL_FILES_KEEP, WL_FILES_REMOVE, WL_FILES_REMOVE_CREATED };
/* Closes and unlocks everything; removes the files as WHAT says. */
void wl_objects_close(struct wl_ctx *c, struct wl_run *run, enum wl_files what);
/* 1 if W's progress in mode M survives a crash and can be resumed. */
int wl_resumable(const struct wl_workload *w, enum wl_mode m);

/* The PM directory (pm_dir.c). usable: 0 if PM files can be made in DIR,
 * else -1 with a message naming WHAT (the flag or variable) and the fix
 * (a pseudo file system, a read-only mount, no permission). note: once
 * per process, a line on stderr when R (a file in it) lies on a disk file
 * system without DAX, where a run measures write-back rather than PM. */
int wl_pm_dir_usable(const char *dir, const char *what);
void wl_pm_dir_note(const struct wl_workload *w, const gpm_region *r);

/* The flusher (persist.c): its thread count, calibrated for "best". */
int wl_flusher_setup(struct wl_ctx *c);

/* The GPU's PCIe transmit throughput over a timed run (pcie.c), sampled
 * through NVML every 20 ms where the driver offers it: start returns 1 if
 * it samples; stop notes pcie_tx_gbps= (or pcie_tx=unavailable) in GPU
 * modes. wl_pcie_why: why it is unavailable ("" if it is not). */
int wl_pcie_start(struct wl_ctx *c);
void wl_pcie_stop(struct wl_ctx *c, int started);
const char *wl_pcie_why(void);

/* The --crash-after watchdog (crash.c). */
double wl_crash_pick(double expected_s, unsigned long long salt);
int wl_crash_arm(double seconds);
int wl_crash_disarm(void);

#ifdef __cplusplus
}
#endif

#endif
