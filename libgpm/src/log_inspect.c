/* gpmlog_inspect: what a log file holds, so a user can see why recovery
 * does what it does. Reads only. */
#include <stdint.h>
#include <string.h>

#include "gpm/log.h"
#include "gpm/tx.h"

/* Reads the first bytes of PATH without mapping it: 1 if they are not a
 * log's magic (or the file is shorter than a header), 0 if they are. */
static int looks_like_log(const char *full)
{
    uint64_t magic = 0;
    FILE *f = fopen(full, "rb");
    size_t n;
    if (!f)
        return -1;
    n = fread(&magic, 1, sizeof magic, f);
    fclose(f);
    return n == sizeof magic && magic == GPMLOG_MAGIC ? 0 : 1;
}

/* The transaction word (gpm/tx.h), and what gpmtx_recover would do: when a
 * transaction is active, the undo records are checked as recovery would
 * check them (their target is unknown here, so only against themselves). */
static void describe_tx(FILE *out, const gpmlog *log, uint64_t total)
{
    const uint8_t *base = (const uint8_t *)log->region.host;
    uint64_t w, records = 0;
    memcpy(&w, base + GPMLOG_TX_OFF, sizeof w);
    fprintf(out, "tx_committed\t%llu\n", (unsigned long long)gpmtx_word_committed(w));
    if (!gpmtx_word_active(w)) {
        fprintf(out, "tx_active\tno\n");
        fprintf(out, "recovery\t%s\n",
                total ? "gpmtx_recover would truncate the log (no transaction active: entries "
                        "of a committed transaction, or of a log used without transactions)"
                      : "nothing to undo (log empty)");
        return;
    }
    fprintf(out, "tx_active\tyes (transaction %llu)\n",
            (unsigned long long)gpmtx_word_committed(w) + 1);
    for (uint32_t s = 0; s < log->g.n_slots; s++) {
        uint32_t t = gpmlog_tail(log, s);
        while (t > 0) {
            gpmtx_rec r;
            int e = gpmtx_rec_parse(&log->g, base, s, t, UINT64_MAX, &r);
            if (e != GPMTX_REC_OK) {
                fprintf(out, "tx_records\t%llu sound, then slot %u refused at byte %u "
                             "(%s): gpmtx_recover would stop and write nothing\n",
                        (unsigned long long)records, s, t, gpmtx_rec_str(e));
                return;
            }
            records++;
            t = r.start;
        }
    }
    fprintf(out, "tx_records\t%llu undo records, all sound\n", (unsigned long long)records);
    fprintf(out, "recovery\t%s\n",
            total ? "gpmtx_recover would undo the logged entries (newest first per slot)"
                  : "nothing to undo (log empty); gpmtx_recover would mark it inactive");
}

int gpmlog_inspect(FILE *out, const char *path)
{
    char full[4096];
    gpmlog log;
    uint32_t nonempty = 0, maxt = 0, maxslot = 0, shown = 0;
    uint64_t total = 0;
    int r;

    if (gpm_resolve_path(path, full, sizeof full) != 0)
        return -1;
    r = looks_like_log(full);
    if (r < 0)
        return gpm_set_error("%s: cannot read it: check the name and its permissions", full);
    if (r == 1)
        return 1;
    if (gpmlog_open(&log, full, GPM_HOST_ONLY) != 0)
        return -1;
    fprintf(out, "file\t%s\n", log.region.path);
    fprintf(out, "type\tundo log\n");
    fprintf(out, "kind\t%s\n", log.g.kind == GPMLOG_HCL ? "hcl" : "conv");
    fprintf(out, "version\t%u\n", log.hdr.version);
    fprintf(out, "file_size\t%llu\n", (unsigned long long)log.hdr.file_size);
    if (log.g.kind == GPMLOG_HCL) {
        fprintf(out, "geometry\t%u blocks x %u threads (%u warps/block)\n", log.g.blocks,
                log.g.threads, log.g.warps_per_block);
        fprintf(out, "slots\t%u (one per thread, warps padded to 32 lanes)\n", log.g.n_slots);
    } else {
        fprintf(out, "partitions\t%u\n", log.g.n_slots);
    }
    fprintf(out, "slot_bytes\t%u\n", log.g.slot_bytes);
    for (uint32_t s = 0; s < log.g.n_slots; s++) {
        uint32_t t = gpmlog_tail(&log, s);
        total += t;
        if (t) {
            nonempty++;
            if (t > maxt) {
                maxt = t;
                maxslot = s;
            }
        }
    }
    fprintf(out, "nonempty_slots\t%u of %u\n", nonempty, log.g.n_slots);
    fprintf(out, "tail_bytes_total\t%llu\n", (unsigned long long)total);
    fprintf(out, "tail_bytes_max\t%u (slot %u)\n", maxt, maxslot);
    /* The first nonempty tails in full: enough to see a pattern without
     * printing a million lines. */
    for (uint32_t s = 0; s < log.g.n_slots && shown < 16; s++) {
        uint32_t t = gpmlog_tail(&log, s);
        if (!t)
            continue;
        if (log.g.kind == GPMLOG_HCL)
            fprintf(out, "tail\tslot %u (block %u warp %u lane %u)\t%u bytes\n", s,
                    s / 32u / log.g.warps_per_block, s / 32u % log.g.warps_per_block, s % 32u,
                    t);
        else
            fprintf(out, "tail\tpartition %u\t%u bytes\n", s, t);
        shown++;
    }
    if (nonempty > shown)
        fprintf(out, "tail\t... %u more nonempty slots\n", nonempty - shown);
    describe_tx(out, &log, total);
    gpmlog_close(&log);
    return 0;
}
