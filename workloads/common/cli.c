/* The command line every workload shares. Each bad flag gets one line that
 * names the flag and says what to pass instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

static const char *const mode_names[WL_NMODES] = {
    "gpm", "gpm-ndp", "gpm-eadr", "cap-mm", "cap-fs", "cap-eadr", "cpu"};
static const char *const scale_names[] = {"tiny", "small", "paper", "custom"};

const char *wl_mode_name(enum wl_mode m)
{
    return (unsigned)m < WL_NMODES ? mode_names[m] : "?";
}

const char *wl_scale_name(enum wl_scale s)
{
    return (unsigned)s <= WL_CUSTOM ? scale_names[s] : "?";
}

int wl_mode_is_cap(enum wl_mode m) { return m == WL_CAP_MM || m == WL_CAP_FS || m == WL_CAP_EADR; }
int wl_mode_fences(enum wl_mode m) { return m == WL_GPM || m == WL_GPM_EADR; }
int wl_mode_uses_flusher(enum wl_mode m) { return m == WL_GPM_NDP || m == WL_CAP_MM || m == WL_CAP_EADR; }

int wl_param_index(const struct wl_workload *w, const char *flag)
{
    for (int i = 0; w->params && w->params[i].flag && i < WL_MAX_PARAMS; i++)
        if (strcmp(w->params[i].flag, flag) == 0)
            return i;
    return -1;
}

static void modes_list(const struct wl_workload *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int m = 0; m < WL_NMODES; m++)
        if (w->modes & WL_MODE_BIT(m))
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "|" : "",
                                  mode_names[m]);
}

static void usage(const struct wl_workload *w, FILE *out)
{
    char modes[128];
    modes_list(w, modes, sizeof modes);
    fprintf(out, "%s: %s\n", w->name, w->about ? w->about : "");
    fprintf(out, "usage: %s --mode %s [--scale tiny|small|paper]", w->name, modes);
    for (int i = 0; w->params && w->params[i].flag; i++)
        fprintf(out, " [--%s N]", w->params[i].flag);
    fprintf(out, "\n       [--reps N] [--pm-dir DIR] [--cpu-threads N|best] [--recover]\n"
                 "       [--crash-after SECONDS|random] [--seed N] [--out FILE] [--keep]\n");
    for (int i = 0; w->params && w->params[i].flag; i++)
        fprintf(out, "  --%-18s %s (tiny %lld, small %lld, paper %lld)\n", w->params[i].flag,
                w->params[i].help, w->params[i].scale[0], w->params[i].scale[1],
                w->params[i].scale[2]);
    fprintf(out, "  --reps N             timed repetitions, median reported (default 3)\n"
                 "  --pm-dir DIR         directory of the PM files (default $GPM_PM_DIR or "
                 "/dev/shm/gpm-UID)\n"
                 "  --cpu-threads N|best CPU flush threads of the CAP engines (default best: "
                 "fastest of 1..32)\n"
                 "  --recover            restore/resume from the PM file of a crashed run, "
                 "finish, verify\n"
                 "  --crash-after S      SIGKILL this process S seconds (or a random moment) "
                 "into the run\n"
                 "  --seed N             input seed (default 1)\n"
                 "  --out FILE           append the result row to FILE (default: print it)\n"
                 "  --keep               keep the PM file after the run\n");
}

static int parse_ll(const char *flag, const char *v, long long min, long long max, long long *out)
{
    char *end;
    long long x;
    int outside = 0;
    errno = 0;
    x = strtoll(v, &end, 0);
    /* Sizes may be written with a K/M/G suffix (powers of two). */
    if (end != v && (*end == 'K' || *end == 'M' || *end == 'G') && end[1] == '\0') {
        int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        if (x < 0 || x > (max >> sh))
            outside = 1; /* never shifted: that could overflow */
        else
            x <<= sh;
        end++;
    }
    if (errno || end == v || *end != '\0')
        return gpm_set_error("--%s: expects an integer, got '%s': pass e.g. --%s %lld", flag, v,
                             flag, min > 1 ? min : 1);
    if (outside || x < min || x > max)
        return gpm_set_error("--%s: %s is out of range: pass a value from %lld to %lld", flag, v,
                             min, max);
    *out = x;
    return 0;
}

int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out)
{
    int have_mode = 0;
    char modes[128];
    memset(o, 0, sizeof *o);
    o->scale = WL_SMALL;
    o->reps = 3;
    o->crash_after = -1;
    o->seed = 1;
    modes_list(w, modes, sizeof modes);

    for (int i = 1; i < argc; i++) {
        char flag[64];
        const char *a = argv[i], *val = NULL, *eq;
        long long x;
        int pi;
        if (strncmp(a, "--", 2) != 0)
            return gpm_set_error("unexpected argument '%s': flags start with -- (see --help)", a);
        a += 2;
        eq = strchr(a, '=');
        if (eq) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - a), a);
            val = eq + 1;
        } else
            snprintf(flag, sizeof flag, "%s", a);

        if (strcmp(flag, "help") == 0) {
            usage(w, help_out);
            return 1;
        }
        if (strcmp(flag, "recover") == 0 || strcmp(flag, "keep") == 0) {
            if (val)
                return gpm_set_error("--%s: takes no value: pass just --%s", flag, flag);
            if (flag[0] == 'r')
                o->recover = 1;
            else
                o->keep = 1;
            continue;
        }
        pi = wl_param_index(w, flag);
        if (pi < 0 && strcmp(flag, "mode") && strcmp(flag, "scale") && strcmp(flag, "reps") &&
            strcmp(flag, "pm-dir") && strcmp(flag, "cpu-threads") &&
            strcmp(flag, "crash-after") && strcmp(flag, "seed") && strcmp(flag, "out"))
            return gpm_set_error("unknown flag --%s: see %s --help", flag, w->name);
        if (!val) {
            if (i + 1 >= argc)
                return gpm_set_error("--%s: needs a value: see %s --help", flag, w->name);
            val = argv[++i];
        }

        if (pi >= 0) {
            const struct wl_param *p = &w->params[pi];
            if (parse_ll(flag, val, p->min, p->max, &x) != 0)
                return -1;
            o->param[pi] = x;
            o->param_given[pi] = 1;
        } else if (strcmp(flag, "mode") == 0) {
            int m;
            for (m = 0; m < WL_NMODES; m++)
                if (strcmp(val, mode_names[m]) == 0)
                    break;
            if (m == WL_NMODES || !(w->modes & WL_MODE_BIT(m)))
                return gpm_set_error("--mode: %s has no mode '%s': use %s", w->name, val, modes);
            o->mode = (enum wl_mode)m;
            have_mode = 1;
        } else if (strcmp(flag, "scale") == 0) {
            int s;
            for (s = 0; s < WL_CUSTOM; s++)
                if (strcmp(val, scale_names[s]) == 0)
                    break;
            if (s == WL_CUSTOM)
                return gpm_set_error("--scale: unknown scale '%s': use tiny|small|paper (or "
                                     "the size flags)", val);
            o->scale = (enum wl_scale)s;
        } else if (strcmp(flag, "reps") == 0) {
            if (parse_ll(flag, val, 1, 1000000, &x) != 0)
                return -1;
            o->reps = (int)x;
        } else if (strcmp(flag, "pm-dir") == 0) {
            if (!*val)
                return gpm_set_error("--pm-dir: empty: pass an existing directory on PM "
                                     "(or /dev/shm)");
            o->pm_dir = val;
        } else if (strcmp(flag, "cpu-threads") == 0) {
            o->cpu_threads_given = 1;
            if (strcmp(val, "best") == 0)
                o->cpu_threads = 0;
            else if (parse_ll(flag, val, 1, GPM_FLUSHER_MAX_THREADS, &x) != 0)
                return gpm_set_error("--cpu-threads: expects a thread count from 1 to %d or "
                                     "'best', got '%s'", GPM_FLUSHER_MAX_THREADS, val);
            else
                o->cpu_threads = (int)x;
        } else if (strcmp(flag, "crash-after") == 0) {
            char *end;
            double s;
            if (strcmp(val, "random") == 0) {
                o->crash_random = 1;
                o->crash_after = 0;
                continue;
            }
            errno = 0;
            s = strtod(val, &end);
            if (errno || end == val || *end || !(s > 0) || s > 1e6)
                return gpm_set_error("--crash-after: expects seconds > 0 or 'random', got "
                                     "'%s'", val);
            o->crash_after = s;
        } else if (strcmp(flag, "seed") == 0) {
            if (parse_ll(flag, val, 0, 0x7fffffffffffffffll, &x) != 0)
                return -1;
            o->seed = (unsigned long long)x;
        } else { /* out */
            if (!*val)
                return gpm_set_error("--out: empty: pass a file name for the result rows");
            o->out = val;
        }
    }
    if (!have_mode)
        return gpm_set_error("--mode: required: pass --mode %s", modes);
    for (int i = 0; w->params && w->params[i].flag; i++)
        if (o->param_given[i] && w->params[i].sizes)
            o->custom = 1;
    return 0;
}

void wl_resolve_params(const struct wl_workload *w, const struct wl_opts *o, long long *p)
{
    /* Size flags override the values of the chosen scale. */
    int s = o->scale == WL_CUSTOM ? WL_SMALL : (int)o->scale;
    for (int i = 0; w->params && w->params[i].flag && i < WL_MAX_PARAMS; i++)
        p[i] = o->param_given[i] ? o->param[i] : w->params[i].scale[s];
}

void wl_params_string(const struct wl_ctx *c, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; c->wl->params && c->wl->params[i].flag && i < WL_MAX_PARAMS; i++)
        n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s=%lld", n ? "," : "",
                              c->wl->params[i].flag, c->p[i]);
}
