/* Checkpoints and the iterative runs that save them, for workloads that
 * declare a WL_OBJ_CHECKPOINT object (BLK, HS, CFD, DNN). */
#ifndef WL_STEPS_H
#define WL_STEPS_H

#include "wl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- checkpoints (cp.c): object I of kind WL_OBJ_CHECKPOINT ---- */
/* Adds a device buffer, in setup(); the same buffers in the same order
 * every run (the file records their sizes). */
int wl_cp_register(struct wl_ctx *c, int i, void *dev, size_t size);
/* Adds a small host record (the iteration reached, the run's sizes) as the
 * checkpoint's last element, after its buffers: saved with every checkpoint
 * and restored with it, so it always belongs to the same checkpoint as the
 * buffers. The harness stages it through device memory where the mode
 * needs the GPU. One per checkpoint; RECORD stays the workload's. */
int wl_cp_register_record(struct wl_ctx *c, int i, void *record, size_t size);
/* Saves the registered buffers (and the record as it is now), the mode's
 * way; counts the bytes. */
int wl_cp_checkpoint(struct wl_ctx *c, int i);
/* Restores the last consistent checkpoint into the buffers and the record:
 * 0 done, 1 there is none yet (the record is then left as it was). */
int wl_cp_restore(struct wl_ctx *c, int i);

/* ---- iterative workloads that checkpoint (steps.c) ----
 * A run of TOTAL steps saving checkpoint object CP every EVERY steps and
 * after the last; DONE points into the checkpoint's record and counts the
 * steps its state holds. BLK, HS, CFD and DNN are such runs. Each
 * checkpoint is a unit of progress (progress_by WL_BY_COMMITS). */
struct wl_steps {
    int cp;
    uint64_t total, every;
    uint64_t *done;
    const char *unit;         /* what a step is, for messages ("iteration") */
    int (*step)(struct wl_ctx *c, uint64_t s); /* computes step S (0-based) */
    /* Optional: brings what steps FROM..TO-1 made into the checkpointed
     * buffers and record before they are saved. */
    int (*before_checkpoint)(struct wl_ctx *c, uint64_t from, uint64_t to);
    /* Optional: right after a restore: 0 if the record is this run's, or
     * -1 with a message naming the flags to pass (a checkpoint of another
     * run is never resumed). */
    int (*record_check)(struct wl_ctx *c);
    /* Optional: after a restore that passed, outside the restoration's
     * time: checks of what was restored, resets of what depends on it. */
    int (*after_restore)(struct wl_ctx *c);
};
/* Steps FROM..total-1 and their checkpoints (noted as checkpoints=N and
 * checkpoint_s=S, the seconds they took apart from the steps: the GPU is
 * synchronised before each). */
int wl_steps_run(struct wl_ctx *c, const struct wl_steps *s, uint64_t from);
/* The last consistent checkpoint, restored and its record checked: 0, 1
 * when there is none yet (the record is left as it was), -1. */
int wl_steps_restore(struct wl_ctx *c, const struct wl_steps *s);
/* The whole recovery of such a run: the restore or, without a checkpoint,
 * RESET to step 0; the restoration is the row's restore time; progress is
 * counted in steps (noted as resumed_from=D); then the remaining steps. */
int wl_steps_recover(struct wl_ctx *c, const struct wl_steps *s, int (*reset)(struct wl_ctx *));
/* For verify(): the last checkpoint restored (and after_restore run) must
 * hold every step: 0, 1 (not so: message set, and wrong_marks=1/1 noted:
 * the output is not compared), -1. */
int wl_steps_final(struct wl_ctx *c, const struct wl_steps *s);

#ifdef __cplusplus
}
#endif

#endif
