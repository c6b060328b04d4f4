/* DNN's check of a restore against the checkpoint's bytes, on a host-only
 * checkpoint file (the production file format and flip protocol, copies
 * made by the CPU): it finds the consistent copy after each flip, passes a
 * faithful restore, names the first differing float of an unfaithful one,
 * and refuses a file without a checkpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/cp_layout.h"
#include "idx_files.h"

static void restore_equals_what_was_saved_after_every_flip(void)
{
    size_t n = DNN_NPARAM_FLOATS;
    float *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *back);
    dnn_meta m, mb;
    gpmcp *cp;
    CHECK(w && back);
    cp = gpmcp_create_flags("dnn-cp", n * sizeof *w + sizeof m, 2, 1, GPM_CREATE | GPM_HOST_ONLY);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, w, n * sizeof *w, 0) == 0 &&
          gpmcp_register(cp, &m, sizeof m, 0) == 0);
    /* No checkpoint yet: nothing to compare with. */
    CHECK_EQ_INT(dnn_cp_compare(cp, 0, w, n * sizeof *w, "parameters"), -1);
    CHECK_MSG(gpm_last_error(), "holds no checkpoint of element 0");
    dnn_meta_init(&m, 50, 64, 10, 1, 0.05, 7, 60000, 10000);
    for (uint64_t k = 1; k <= 3; k++) {
        dnn_init_params(k, w);
        m.iters_done = 10 * k;
        CHECKF(gpmcp_checkpoint(cp, 0) == 0, "%s", gpm_last_error());
        memcpy(back, w, n * sizeof *w);
        mb = m;
        dnn_init_params(99, w); /* the run moves on */
        m.iters_done = 99;
        CHECK_EQ_INT(dnn_cp_compare(cp, 0, back, n * sizeof *w, "parameters"), 0);
        CHECK_EQ_INT(dnn_cp_compare(cp, 1, &mb, sizeof mb, "record"), 0);
        /* The restore is what the comparison holds against. */
        CHECK(gpmcp_restore(cp, 0) == 0);
        CHECK(memcmp(w, back, n * sizeof *w) == 0 && m.iters_done == 10 * k);
        CHECK_EQ_INT(dnn_cp_compare(cp, 0, w, n * sizeof *w, "parameters"), 0);
    }
    /* One float off by one ulp. */
    back[dnn_tensor_off(DNN_W_FC1) + 5] = nextafterf(back[dnn_tensor_off(DNN_W_FC1) + 5], 1.0f);
    CHECK_EQ_INT(dnn_cp_compare(cp, 0, back, n * sizeof *w, "parameters"), 1);
    CHECK_MSG(gpm_last_error(), "restored parameters differ from the checkpoint at float");
    {
        char want[64];
        snprintf(want, sizeof want, "float %llu ",
                 (unsigned long long)(dnn_tensor_off(DNN_W_FC1) + 5));
        CHECK_MSG(gpm_last_error(), want);
    }
    CHECK_MSG(gpm_last_error(), "not bit for bit");
    /* Another size. */
    CHECK_EQ_INT(dnn_cp_compare(cp, 1, &mb, sizeof mb - 8, "record"), 1);
    CHECK_MSG(gpm_last_error(), "saved 256 bytes of record");
    CHECK_EQ_INT(dnn_cp_compare(cp, 2, &mb, sizeof mb, "record"), -1);
    gpmcp_close(cp);
    free(w);
    free(back);
}

int main(void)
{
    if (test_dir_make("dnn-cp") != 0) {
        printf("not ok - setup: cannot make a scratch directory\n");
        return 1;
    }
    setenv("GPM_PM_DIR", test_dir, 1);
    RUN(restore_equals_what_was_saved_after_every_flip);
    test_dir_remove();
    CHECK_EXIT();
}
