/* Logs written unfenced (mode gpm-ndp) and made durable by the CPU:
 * gpmlog_flush on emulated PM, with and without a pool, its refusal of
 * impossible tails, and the two device handles. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/log.h"

/* Entries of many sizes in many slots, as kernels would leave them. */
static void fill_log(gpmlog *log)
{
    for (uint32_t s = 0; s < log->g.n_slots; s += 3) {
        uint8_t e[40];
        uint32_t size = 1 + s % 37;
        for (uint32_t i = 0; i < sizeof e; i++)
            e[i] = (uint8_t)(s + i);
        for (uint32_t k = 0; k <= s % 4; k++)
            gpmlog_host_insert(log, s, e, size);
    }
}

static void flush_keeps_entries_and_tails(void)
{
    const char *names[2] = {"lf-hcl", "lf-conv"};
    for (int k = 0; k < 2; k++) {
        gpmlog log;
        gpm_flusher *f = gpm_flusher_create(3);
        uint8_t *before;
        CHECK(f);
        CHECKF((k == 0 ? gpmlog_create_hcl(&log, names[k], 256 * 1024, 3, 40, GPM_HOST_ONLY)
                       : gpmlog_create_conv(&log, names[k], 256 * 1024, 9, GPM_HOST_ONLY)) == 0,
               "%s", gpm_last_error());
        CHECK_EQ_INT(gpmlog_flush(&log, NULL), 0); /* empty: the tails alone */
        fill_log(&log);
        before = malloc(log.region.size);
        CHECK(before);
        memcpy(before, log.region.host, log.region.size);
        CHECKF(gpmlog_flush(&log, NULL) == 0, "%s", gpm_last_error());
        CHECKF(gpmlog_flush(&log, f) == 0, "%s", gpm_last_error());
        CHECK(memcmp(before, log.region.host, log.region.size) == 0);
        free(before);
        gpm_flusher_destroy(f);
        gpmlog_close(&log);
    }
}

/* A tail no insert could produce (a kernel that wrote past its slot, or
 * stray stores) is named, and nothing is flushed or changed. */
static void impossible_tail_is_refused(void)
{
    gpmlog log;
    uint32_t *tails;
    CHECK(gpmlog_create_hcl(&log, "lf-bad", 64 * 1024, 1, 64, GPM_HOST_ONLY) == 0);
    tails = (uint32_t *)((uint8_t *)log.region.host + log.g.tails_off);
    tails[40] = log.g.slot_bytes + 4;
    CHECK(gpmlog_flush(&log, NULL) == -1);
    CHECK_MSG(gpm_last_error(), "lf-bad");
    CHECK_MSG(gpm_last_error(), "slot 40");
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
    CHECK_EQ_INT(tails[40], log.g.slot_bytes + 4);
    tails[40] = 6;
    CHECK(gpmlog_flush(&log, NULL) == -1);
    gpmlog_close(&log);
}

static void device_handles_differ_only_in_fencing(void)
{
    gpmlog log;
    gpmlog_dev a, b;
    CHECK(gpmlog_create_conv(&log, "lf-dev", 8 * 1024, 4, GPM_HOST_ONLY) == 0);
    a = gpmlog_device(&log);
    b = gpmlog_device_unfenced(&log);
    CHECK_EQ_INT(a.fenced, 1);
    CHECK_EQ_INT(b.fenced, 0);
    CHECK(a.pm == b.pm && a.tails == b.tails && a.locks == b.locks);
    CHECK(memcmp(&a.g, &b.g, sizeof a.g) == 0);
    gpmlog_close(&log);
}

int main(void)
{
    RUN(flush_keeps_entries_and_tails);
    RUN(impossible_tail_is_refused);
    RUN(device_handles_differ_only_in_fencing);
    CHECK_EXIT();
}
