/* wl_main: the life of one workload run. Setup is untimed; each repetition
 * times exactly the workload's run() (kernels + persistence), which is the
 * timing rule of the suite; the row carries the median and the platform. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "gpm/results.h"
#include "wl.h"

static int fail(const struct wl_workload *w, int status)
{
    fprintf(stderr, "%s: %s\n", w->name, gpm_last_error());
    return status;
}

static int open_region(struct wl_ctx *c)
{
    enum wl_mode m = c->opt.mode;
    int flags = c->fresh ? GPM_CREATE : 0;
    /* CAP-fs writes through the file and the CPU mode never involves the
     * GPU: their mapping is only for reading back. */
    if (m == WL_CAP_FS || m == WL_CPU)
        flags |= GPM_HOST_ONLY;
    if (gpm_map(&c->pm, c->pm_name, c->pm_bytes, flags) != 0)
        return -1;
    if (m == WL_CAP_FS) {
        if (gpm_cap_file_open(&c->cf, c->pm_name, c->pm_bytes, 0) != 0)
            return -1;
        c->cf_open = 1;
    }
    return 0;
}

static void close_region(struct wl_ctx *c)
{
    if (c->cf_open)
        gpm_cap_file_close(&c->cf);
    c->cf_open = 0;
    gpm_unmap(&c->pm);
}

static void write_row(struct wl_ctx *c, const char *op, int reps, const double *t,
                      int verified, FILE *out_or_null, int *row_err)
{
    gpm_platform plat;
    gpm_result res;
    char params[1024], sizes[512];
    wl_params_string(c, sizes, sizeof sizes);
    snprintf(params, sizeof params, "%s,seed=%llu,cpu_threads=%s%s%s", sizes, c->opt.seed,
             c->threads_how, c->note[0] ? "," : "", c->note);
    memset(&res, 0, sizeof res);
    res.workload = c->wl->name;
    res.op = op;
    res.mode = wl_mode_name(c->opt.mode);
    res.scale = c->opt.custom ? "custom" : wl_scale_name(c->opt.scale);
    res.size_bytes = c->data_bytes;
    res.threads = c->threads;
    gpm_result_set_times(&res, t, reps);
    res.bytes_persisted = c->bytes_persisted;
    res.verified = verified ? "ok" : "fail";
    res.params = params;
    gpm_platform_collect(&plat);
    if (c->opt.out) {
        if (gpm_result_append(c->opt.out, &plat, &res) != 0) {
            fprintf(stderr, "%s: %s\n", c->wl->name, gpm_last_error());
            *row_err = 1;
        }
    } else {
        gpm_result_tsv_header(out_or_null);
        gpm_result_tsv_row(out_or_null, &plat, &res);
        fflush(out_or_null);
    }
}

static void progress(const struct wl_ctx *c, int rep, int reps, double s)
{
    /* Only long runs: a short one would drown its row in noise. */
    if (s < 2.0 && c->expected_s * reps < 5.0)
        return;
    fprintf(stderr, "%s %s: rep %d/%d %.3f s\n", c->wl->name, wl_mode_name(c->opt.mode),
            rep + 1, reps, s);
}

/* A crash that was asked for but cannot be armed is an error: the run
 * must not pass for one that "finished before the kill". */
static int arm_crash(struct wl_ctx *c)
{
    if (c->opt.crash_after < 0)
        return 0;
    if (wl_crash_arm(c->opt.crash_random ? wl_crash_pick(c->expected_s, c->opt.seed)
                                         : c->opt.crash_after) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", gpm_last_error());
        return gpm_set_error("--crash-after: %s", why);
    }
    return 0;
}

int wl_main(const struct wl_workload *w, int argc, char **argv)
{
    struct wl_ctx ctx, *c = &ctx;
    double *t;
    int reps, ok = 0, rc, row_err = 0;
    const char *op;

    memset(c, 0, sizeof *c);
    c->wl = w;
    c->restore_s = -1;
    snprintf(c->threads_how, sizeof c->threads_how, "0");
    rc = wl_parse_args(w, argc, argv, &c->opt, stdout);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return fail(w, 2);
    if (c->opt.pm_dir) {
        struct stat st;
        if (stat(c->opt.pm_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            gpm_set_error("--pm-dir: %s is not a directory: create it or pass an existing "
                          "directory on PM (or /dev/shm)", c->opt.pm_dir);
            return fail(w, 2);
        }
        setenv("GPM_PM_DIR", c->opt.pm_dir, 1);
    }
    wl_resolve_params(w, &c->opt, c->p);
    c->fresh = !c->opt.recover;
    if (w->layout && w->layout(c) != 0)
        return fail(w, 2);
    snprintf(c->pm_name, sizeof c->pm_name, "%s-%s.%s", w->name,
             c->opt.custom ? "custom" : wl_scale_name(c->opt.scale),
             w->pm_kind == WL_PM_REGION ? "pm" : c->opt.mode == WL_CAP_FS ? "fscp" : "cp");

    if (w->pm_kind == WL_PM_REGION && open_region(c) != 0)
        return fail(w, 1);
    if (wl_flusher_setup(c) != 0 || (w->setup && w->setup(c) != 0)) {
        rc = fail(w, 1);
        goto out;
    }

    reps = c->opt.recover ? 1 : c->opt.reps;
    t = calloc((size_t)reps, sizeof *t);
    if (!t) {
        gpm_set_error("out of memory");
        rc = fail(w, 1);
        goto out;
    }
    if (c->opt.recover) {
        double t0;
        op = "recover";
        c->bytes_persisted = 0;
        rc = arm_crash(c);
        t0 = wl_now();
        if (rc == 0)
            rc = w->recover ? w->recover(c) : gpm_set_error("%s has no recovery", w->name);
        t[0] = wl_now() - t0;
        if (rc == 0) {
            char total[64];
            snprintf(total, sizeof total, "%stotal_s=%.6f", c->note[0] ? "," : "", t[0]);
            strncat(c->note, total, sizeof c->note - strlen(c->note) - 1);
            if (c->restore_s >= 0)
                t[0] = c->restore_s;
        }
    } else {
        op = "run";
        rc = 0;
        for (int r = 0; r < reps && rc == 0; r++) {
            double t0;
            c->rep = r;
            if (w->prepare && (rc = w->prepare(c)) != 0)
                break;
            c->bytes_persisted = 0;
            if (r == 0 && (rc = arm_crash(c)) != 0)
                break;
            t0 = wl_now();
            rc = w->run(c);
            t[r] = wl_now() - t0;
            if (rc == 0)
                progress(c, r, reps, t[r]);
        }
    }
    if (rc != 0) {
        free(t);
        rc = fail(w, 1);
        goto out;
    }
    if (c->opt.crash_after >= 0)
        fprintf(stderr, "crash: the run finished before the watchdog fired\n");

    /* Every run verifies its output: a workload without a check fails. */
    rc = w->verify ? w->verify(c) : gpm_set_error("%s has no verify callback", w->name);
    if (rc < 0) {
        free(t);
        rc = fail(w, 1);
        goto out;
    }
    ok = rc == 0;
    if (!ok)
        fprintf(stderr, "%s: verification failed: %s\n", w->name, gpm_last_error());
    write_row(c, op, reps, t, ok, stdout, &row_err);
    free(t);
    rc = ok && !row_err ? 0 : 1;
out:
    if (w->teardown)
        w->teardown(c);
    if (c->cp)
        wl_cp_close(c);
    if (c->flusher)
        gpm_flusher_destroy(c->flusher);
    close_region(c);
    /* The file is the benchmark's scratch: removed after a verified run,
     * kept when asked, when verification failed (to look at it) and when a
     * crash was asked for (the trial recovers from it). */
    if (rc == 0 && !c->opt.keep && c->opt.crash_after < 0) {
        char path[4096];
        if (gpm_resolve_path(c->pm_name, path, sizeof path) == 0)
            unlink(path);
    }
    return rc;
}
