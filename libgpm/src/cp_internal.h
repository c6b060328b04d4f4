/* Inside libgpm: a checkpoint handle, shared by cp.c (files, layout, the
 * mapped ways of checkpointing) and cp_fs.c (the CAP-fs way). */
#ifndef GPM_CP_INTERNAL_H
#define GPM_CP_INTERNAL_H

#include <stdint.h>

#include "gpm/cap.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "gpm/gpm.h"

typedef struct cp_reg {
    void *addr;
    uint64_t size;
} cp_reg;

struct gpmcp {
    gpm_region r;
    gpmcp_header h;        /* validated copy: geometry is never re-read from PM */
    int host_only;         /* registered buffers are host memory (GPM_HOST_ONLY) */
    int file_io;           /* GPMCP_FILE_IO: data through CF and RFD, mapping host-only */
    int gds;               /* file_io with GPM_CAP_GDS: CF's device data goes by cuFile */
    gpm_cap_file cf;       /* file_io: pwrite + fsync engine with its pinned staging */
    int rfd;               /* file_io: the file for pread (CF's descriptor is write-only) */
    gpm_range *ranges;     /* file_io: one group's elements, sized at open */
    cp_reg *regs;          /* groups x elements, in registration order */
    uint32_t *nreg;        /* registrations per group */
    gpmcp_xfer *dev_xfers; /* device copy of each group's transfer list */
    uint8_t *xfers_stale;  /* per group: dev_xfers must be re-uploaded */
};

static inline gpmcp_group *cp_group(const gpmcp *cp, uint32_t g)
{
    return gpmcp_group_at(cp->r.host, &cp->h, g);
}

static inline gpmcp_elem *cp_elems(const gpmcp *cp, uint32_t g)
{
    return gpmcp_elems_of(cp->r.host, &cp->h, g);
}

static inline const cp_reg *cp_regs(const gpmcp *cp, uint32_t g)
{
    return cp->regs + (size_t)g * cp->h.elements;
}

/* cp_fs.c: the CAP-fs way. */

/* Opens CP's file for pwrite (with staging unless host_only) and pread,
 * and allocates the range list; on failure closes what it opened. */
int cpfs_open(gpmcp *cp);
/* Safe on a handle that cpfs_open never opened (rfd -1 or 0-filled cf). */
void cpfs_close(gpmcp *cp);
/* Writes group GI's working copy W from its buffers: one fsync. */
int cpfs_write_copy(gpmcp *cp, uint32_t gi, uint32_t w, void *stream);
/* Writes group GI's flip word FLIP with pwrite + fsync. */
int cpfs_flip(gpmcp *cp, uint32_t gi, uint64_t flip);
/* Reads group GI's copy C back into its buffers with pread. */
int cpfs_restore(gpmcp *cp, uint32_t gi, uint32_t c, void *stream);

#endif
