/* The identity of a run, kept on PM beside its objects (W-SCALE.id) by the
 * workloads' harness, and read here too by the tools (gpm-inspect): which
 * workload wrote the objects, with which parameters, seed and mode, in
 * which epoch, and whether that run was created, running or complete.
 * Recovery reads it before touching anything, so that a file of another
 * run is refused untouched and a crash is classified by what it hit.
 *
 * Two slots, each sealed by a checksum and ordered by a sequence number:
 * an update writes the slot that does not hold the current identity, so a
 * write torn by a crash leaves the previous identity valid. */
#ifndef GPM_RUN_ID_H
#define GPM_RUN_ID_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GPM_RUN_ID_MAGIC 0x3144494c574d5047ull /* "GPMWLID1" */
#define GPM_RUN_ID_VERSION 1u
#define GPM_RUN_ID_SLOT_BYTES 2048u
#define GPM_RUN_ID_FILE_BYTES (2u * GPM_RUN_ID_SLOT_BYTES)
#define GPM_RUN_ID_PARAMS 1536
#define GPM_RUN_ID_MAX_OBJECTS 4 /* a run's PM objects */
#define GPM_RUN_ID_MAX_MODES 16  /* a mode's number is below it */

/* PREPARING: a repetition's epoch is new and prepare() is resetting what
 * it starts from; nothing of it is durable progress yet. */
enum gpm_run_state {
    GPM_RUN_CREATED = 1,
    GPM_RUN_RUNNING = 2,
    GPM_RUN_COMPLETE = 3,
    GPM_RUN_PREPARING = 4
};

struct gpm_run_id {
    uint64_t magic;
    uint32_t version;
    uint32_t state;        /* enum gpm_run_state */
    uint64_t seq;          /* the valid slot with the higher one is current */
    char workload[32];
    uint64_t params_hash;  /* of params[] */
    uint64_t seed;
    uint32_t mode;         /* the harness's number of the mode that wrote the objects last */
    uint32_t nobj;
    uint64_t epoch;
    uint64_t obj_bytes[GPM_RUN_ID_MAX_OBJECTS]; /* each object's file size */
    uint64_t pid;          /* the writer, for messages */
    char params[GPM_RUN_ID_PARAMS]; /* "n=...,block=..." as the row prints them */
    /* MODE by name, so that a reader (gpm-inspect) needs no copy of the
     * mode table and reads it right whatever the numbering becomes; taken
     * from what was padding, so empty in files written before it. */
    char mode_name[16];
    uint8_t pad[GPM_RUN_ID_SLOT_BYTES - 128 - GPM_RUN_ID_PARAMS - 16 - 8];
    uint64_t checksum;     /* FNV-1a of the slot with this field zero */
};
/* A slot is GPM_RUN_ID_SLOT_BYTES exactly (C and C++ alike). */
typedef char gpm_run_id_size_check[sizeof(struct gpm_run_id) == GPM_RUN_ID_SLOT_BYTES ? 1 : -1];

static inline uint64_t gpm_run_id_fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static inline uint64_t gpm_run_id_hash_params(const char *params)
{
    return gpm_run_id_fnv(params, strlen(params), 0xcbf29ce484222325ull);
}

static inline uint64_t gpm_run_id_sum(const struct gpm_run_id *s)
{
    return gpm_run_id_fnv(s, offsetof(struct gpm_run_id, checksum), 0xcbf29ce484222325ull);
}

static inline int gpm_run_id_valid(const struct gpm_run_id *s)
{
    return s->magic == GPM_RUN_ID_MAGIC && s->version == GPM_RUN_ID_VERSION &&
           s->checksum == gpm_run_id_sum(s) && s->state >= GPM_RUN_CREATED &&
           s->state <= GPM_RUN_PREPARING && s->mode < GPM_RUN_ID_MAX_MODES &&
           s->nobj <= GPM_RUN_ID_MAX_OBJECTS && memchr(s->workload, 0, sizeof s->workload) &&
           memchr(s->params, 0, sizeof s->params);
}

/* The current slot of the two (-1: neither is valid). */
static inline int gpm_run_id_current(const struct gpm_run_id *slot)
{
    int v0 = gpm_run_id_valid(&slot[0]), v1 = gpm_run_id_valid(&slot[1]);
    if (v0 && v1)
        return slot[1].seq > slot[0].seq ? 1 : 0;
    return v0 ? 0 : v1 ? 1 : -1;
}

#endif
