/* Helpers of the checkpoint-file tests (test_cp_file.c, test_cp_fs.c):
 * buffers with a recognisable pattern, fresh file names, and a hash of a
 * whole file read with read() to prove that a refusal wrote nothing. */
#ifndef CP_FILES_H
#define CP_FILES_H

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/cp_layout.h"
#include "gpm/gpm.h"

static void fill(void *p, size_t n, uint32_t tag)
{
    uint32_t *w = p;
    for (size_t i = 0; i < n / 4; i++)
        w[i] = tag * 2654435761u ^ (uint32_t)i;
}

static int holds(const void *p, size_t n, uint32_t tag)
{
    const uint32_t *w = p;
    for (size_t i = 0; i < n / 4; i++)
        if (w[i] != (tag * 2654435761u ^ (uint32_t)i))
            return 0;
    return 1;
}

/* FULL (4096 bytes) gets NAME's path; no file is left there. */
static void fresh(const char *name, char *full)
{
    gpm_resolve_path(name, full, 4096);
    unlink(full);
}

static uint64_t file_hash(const char *path)
{
    size_t len = 0;
    unsigned char *b = check_read_file(path, &len);
    uint64_t h = b ? gpmcp_hash(GPMCP_HASH_SEED, b, len) : 0;
    free(b);
    return h;
}

#endif
