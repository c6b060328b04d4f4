/* The identity of a run, kept on PM beside its objects (W-SCALE.id): which
 * workload wrote the objects, with which parameters, seed and mode, in
 * which epoch, and whether that run was created, running or complete.
 * Recovery reads it before touching anything, so that a file of another
 * run is refused untouched and a crash is classified by what it hit.
 *
 * Two slots, each sealed by a checksum and ordered by a sequence number:
 * an update writes the slot that does not hold the current identity, so a
 * write torn by a crash leaves the previous identity valid. */
#ifndef WL_IDENTITY_H
#define WL_IDENTITY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wl.h"

#define WL_ID_MAGIC 0x3144494c574d5047ull /* "GPMWLID1" */
#define WL_ID_VERSION 1u
#define WL_ID_SLOT_BYTES 2048u
#define WL_ID_FILE_BYTES (2u * WL_ID_SLOT_BYTES)
#define WL_ID_PARAMS 1536

/* PREPARING: a repetition's epoch is new and prepare() is resetting what
 * it starts from; nothing of it is durable progress yet. */
enum wl_id_state { WL_ID_CREATED = 1, WL_ID_RUNNING = 2, WL_ID_COMPLETE = 3, WL_ID_PREPARING = 4 };

struct wl_identity {
    uint64_t magic;
    uint32_t version;
    uint32_t state;        /* enum wl_id_state */
    uint64_t seq;          /* the valid slot with the higher one is current */
    char workload[32];
    uint64_t params_hash;  /* of params[] */
    uint64_t seed;
    uint32_t mode;         /* enum wl_mode of the run that wrote the objects last */
    uint32_t nobj;
    uint64_t epoch;
    uint64_t obj_bytes[WL_MAX_OBJECTS]; /* each object's file size */
    uint64_t pid;          /* the writer, for messages */
    char params[WL_ID_PARAMS]; /* "n=...,block=..." as the row prints them */
    /* MODE by name, so that a reader (gpm-inspect) needs no copy of the
     * mode table and reads it right whatever the numbering becomes; taken
     * from what was padding, so empty in files written before it. */
    char mode_name[16];
    uint8_t pad[WL_ID_SLOT_BYTES - 128 - WL_ID_PARAMS - 16 - 8];
    uint64_t checksum;     /* FNV-1a of the slot with this field zero */
};
/* A slot is WL_ID_SLOT_BYTES exactly (C and C++ alike). */
typedef char wl_id_slot_size_check[sizeof(struct wl_identity) == WL_ID_SLOT_BYTES ? 1 : -1];

static inline uint64_t wl_id_fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static inline uint64_t wl_id_hash_params(const char *params)
{
    return wl_id_fnv(params, strlen(params), 0xcbf29ce484222325ull);
}

static inline uint64_t wl_id_sum(const struct wl_identity *s)
{
    return wl_id_fnv(s, offsetof(struct wl_identity, checksum), 0xcbf29ce484222325ull);
}

static inline int wl_id_valid(const struct wl_identity *s)
{
    return s->magic == WL_ID_MAGIC && s->version == WL_ID_VERSION && s->checksum == wl_id_sum(s) &&
           s->state >= WL_ID_CREATED && s->state <= WL_ID_PREPARING && s->mode < WL_MAX_MODES &&
           s->nobj <= WL_MAX_OBJECTS && memchr(s->workload, 0, sizeof s->workload) &&
           memchr(s->params, 0, sizeof s->params);
}

/* The current slot of the two (-1: neither is valid). */
static inline int wl_id_current(const struct wl_identity *slot)
{
    int v0 = wl_id_valid(&slot[0]), v1 = wl_id_valid(&slot[1]);
    if (v0 && v1)
        return slot[1].seq > slot[0].seq ? 1 : 0;
    return v0 ? 0 : v1 ? 1 : -1;
}

#endif
