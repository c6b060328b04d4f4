/* gpKVS's table and the meaning of a batch, written once for the kernels,
 * the CPU counterpart and the reference (GPM_HD).
 *
 * The table: NSETS sets of 8 ways, each way a 16-byte pair (8-byte key,
 * 8-byte value), a set 128 bytes (one line on the GPU). Key 0 marks a free
 * way. A key belongs to set kvs_set_of(key).
 *
 * A SET of (key, value) in its set: the way that holds the key gets the
 * value; else the lowest free way gets the pair; else the pair replaces the
 * key's victim way, kvs_victim(key). A batch's SETs apply in batch order
 * within each set (sets are independent, so any order across sets gives
 * the same table). Its GETs read the table as it was before the batch. */
#ifndef KVS_MODEL_H
#define KVS_MODEL_H

#include <stdint.h>

#include "gpm/hd.h"

#define KVS_WAYS 8
#define KVS_SET_BYTES 128

typedef struct kvs_pair {
    uint64_t key, val;
} kvs_pair;

typedef struct kvs_set {
    kvs_pair way[KVS_WAYS];
} kvs_set;

GPM_HD uint64_t kvs_set_of(uint64_t key, uint64_t nsets)
{
    return gpm_mix64(key ^ 0x5bd1e9955bd1e995ull) % nsets;
}

GPM_HD uint32_t kvs_victim(uint64_t key)
{
    return (uint32_t)(key >> 61);
}

/* The way a SET of KEY writes, given the set's keys as they are: its own,
 * else the first free one, else its victim. */
GPM_HD uint32_t kvs_way_for(const uint64_t keys[KVS_WAYS], uint64_t key)
{
    uint32_t free_way = KVS_WAYS;
    for (uint32_t w = 0; w < KVS_WAYS; w++) {
        if (keys[w] == key)
            return w;
        if (keys[w] == 0 && free_way == KVS_WAYS)
            free_way = w;
    }
    return free_way < KVS_WAYS ? free_way : kvs_victim(key);
}

/* The same for set S as it is: the way a SET of KEY writes there. */
GPM_HD uint32_t kvs_way_in(const kvs_set *s, uint64_t key)
{
    uint64_t keys[KVS_WAYS];
    for (int w = 0; w < KVS_WAYS; w++)
        keys[w] = s->way[w].key;
    return kvs_way_for(keys, key);
}

/* A batch's grouping keys (the GPU's sort of its SETs by set): a SET's key
 * is its set, any other operation's the marker, all ones in the key's
 * BITS, so that it sorts after every SET. BITS are the fewest that leave
 * the marker above every set (NSETS <= 2^BITS - 1), at most 32: fewer
 * bits, fewer radix passes. */
GPM_HD int kvs_group_bits(uint64_t nsets)
{
    int bits = 1;
    while (bits < 32 && (nsets >> bits) != 0)
        bits++;
    return bits;
}

GPM_HD uint32_t kvs_group_marker(int bits)
{
    return bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
}

/* What an operation does: KVS_GET reads, KVS_SET writes, a YCSB
 * read-modify-write both (its GET reads the table before its batch, as
 * every GET does), KVS_NOP (the padding of a short last batch) nothing. */
enum { KVS_NOP = 0, KVS_GET = 1, KVS_SET = 2 };

/* Operation I of batch B (N operations a batch) of the run SEED: its value,
 * and, for --op set and get-set, whether it is a SET (all are, unless
 * SET_PCT < 100: get-set). The key and the operation come from the host's
 * generators (kvs_ref.c). */
GPM_HD uint64_t kvs_value(uint64_t seed, uint64_t b, uint64_t n, uint64_t i)
{
    return gpm_mix64(seed * 0x2545f4914f6cdd1dull + b * n + i + 1);
}

GPM_HD int kvs_is_set(uint64_t seed, uint64_t b, uint64_t n, uint64_t i, uint32_t set_pct)
{
    return set_pct >= 100 ||
           gpm_mix64((seed ^ 0x9e3779b97f4a7c15ull) * 31 + b * n + i) % 100 < set_pct;
}

/* A GET's contribution to its batch's digest: its value (0: not found)
 * weighted by its position, so that a wrong, missing or misplaced result
 * changes the sum. */
GPM_HD uint64_t kvs_get_digest(uint64_t i, uint64_t val)
{
    return val * (2 * i + 1);
}

#endif
