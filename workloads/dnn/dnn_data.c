/* --dataset: where the four IDX files are, their headers, and the data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnn.h"

static const char *const std_names[DNN_NPARTS] = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
};

#define FETCH_HINT(prefix)                                                                   \
    "for f in train-images train-labels t10k-images t10k-labels; do datasets/fetch.sh "      \
    prefix "-$f; done"

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/PREFIX NAME.gz, else DIR/PREFIX NAME, into OUT: 1 found, 0 not. */
static int find_one(const char *dir, const char *prefix, const char *name, char *out,
                    size_t len)
{
    snprintf(out, len, "%s/%s%s.gz", dir, prefix, name);
    if (is_file(out))
        return 1;
    snprintf(out, len, "%s/%s%s", dir, prefix, name);
    return is_file(out);
}

/* All four in DIR under PREFIX: -1 (none), or the index of the first missing
 * one, or DNN_NPARTS when all are there. */
static int find_all(const char *dir, const char *prefix, struct dnn_files *f)
{
    int k = 0;
    while (k < DNN_NPARTS && find_one(dir, prefix, std_names[k], f->path[k], sizeof f->path[k]))
        k++;
    return k;
}

const char *dnn_fashion_dirs(void)
{
    static char dirs[3 * 4200 + 64];
    char exe[4096], *slash;
    const char *env = getenv("GPM_FASHION_MNIST_DIR");
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    size_t k;
    k = (size_t)snprintf(dirs, sizeof dirs, "%s", env && *env ? env : DNN_FASHION_DIR);
    if (n <= 0)
        return dirs;
    exe[n] = '\0';
    /* Up from the program's folder: its parent's share/, then its
     * grandparent's (bundle/bin/dnn, bundle/tests/gpu/dnn_test_...). */
    for (int up = 0; up < 3 && (slash = strrchr(exe, '/')) && slash != exe; up++) {
        *slash = '\0';
        if (up > 0 && k < sizeof dirs)
            k += (size_t)snprintf(dirs + k, sizeof dirs - k, ":%s/share/datasets/fashion-mnist",
                                  exe);
    }
    return dirs;
}

static int find_fashion(const char *fashion_dirs, struct dnn_files *f)
{
    char dir[4200], where[3 * 4200 + 64];
    const char *p = fashion_dirs, *cache;
    size_t n, w = 0;
    where[0] = '\0';
    for (; *p; p += n + (p[n] == ':')) {
        n = strcspn(p, ":");
        if (n == 0 || n >= sizeof dir)
            continue;
        snprintf(dir, sizeof dir, "%.*s", (int)n, p);
        if (find_all(dir, "", f) == DNN_NPARTS)
            return 0;
        if (w < sizeof where)
            w += (size_t)snprintf(where + w, sizeof where - w, "%s%s", w ? ", " : "", dir);
    }
    /* Not installed: a copy fetched with datasets/fetch.sh (or put there
     * by hand) will do. */
    cache = wl_data_dir();
    if (cache && find_all(cache, "fashion-mnist-", f) == DNN_NPARTS)
        return 0;
    return gpm_set_error("--dataset fashion: Fashion-MNIST is not in %s nor in %s: install the "
                         "Debian package dataset-fashion-mnist (apt-get install "
                         "dataset-fashion-mnist), or fetch it: " FETCH_HINT("fashion-mnist"),
                         where, cache ? cache : "the dataset cache");
}

int dnn_dataset_find(const char *spec, const char *fashion_dirs, struct dnn_files *f)
{
    struct stat st;
    int k;
    memset(f, 0, sizeof *f);
    if (strcmp(spec, "fashion") == 0) {
        f->kind = DNN_DATA_FASHION;
        snprintf(f->name, sizeof f->name, "fashion");
        return find_fashion(fashion_dirs, f);
    }
    if (strcmp(spec, "mnist") == 0) {
        const char *cache = wl_data_dir();
        f->kind = DNN_DATA_MNIST;
        snprintf(f->name, sizeof f->name, "mnist");
        if (!cache)
            return -1;
        if ((k = find_all(cache, "mnist-", f)) == DNN_NPARTS)
            return 0;
        return gpm_set_error("--dataset mnist: %s/mnist-%s.gz not found: fetch MNIST: "
                             FETCH_HINT("mnist"), cache, std_names[k]);
    }
    f->kind = DNN_DATA_DIR;
    snprintf(f->name, sizeof f->name, "dir");
    if (stat(spec, &st) != 0 || !S_ISDIR(st.st_mode))
        return gpm_set_error("--dataset %s: not fashion, mnist nor a directory: pass one of "
                             "them (a directory holds %s, %s, %s and %s, each may be .gz)",
                             spec, std_names[0], std_names[1], std_names[2], std_names[3]);
    if ((k = find_all(spec, "", f)) == DNN_NPARTS)
        return 0;
    return gpm_set_error("--dataset %s: %s/%s(.gz) not found: the directory must hold the four "
                         "MNIST-format files %s, %s, %s and %s", spec, spec, std_names[k],
                         std_names[0], std_names[1], std_names[2], std_names[3]);
}

static uint32_t magic_of(int part)
{
    return part == DNN_TRAIN_IMAGES || part == DNN_TEST_IMAGES ? DNN_IDX_IMAGES : DNN_IDX_LABELS;
}

/* Images 28 x 28 and as many labels as images, in headers H. */
static int check_headers(const struct dnn_files *f, const struct dnn_idx *h)
{
    for (int k = 0; k < DNN_NPARTS; k += 2) {
        if (h[k].rows != DNN_IMG || h[k].cols != DNN_IMG)
            return gpm_set_error("%s: images of %u x %u pixels: LeNet takes 28 x 28", f->path[k],
                                 h[k].rows, h[k].cols);
        if (h[k].n != h[k + 1].n)
            return gpm_set_error("%s: %u labels for the %u images of %s: pass files of one "
                                 "dataset", f->path[k + 1], h[k + 1].n, h[k].n, f->path[k]);
    }
    return 0;
}

int dnn_dataset_check(const struct dnn_files *f, uint32_t *ntrain, uint32_t *ntest)
{
    struct dnn_idx h[DNN_NPARTS];
    for (int k = 0; k < DNN_NPARTS; k++)
        if (dnn_idx_read(f->path[k], magic_of(k), 0, &h[k]) != 0)
            return -1;
    if (check_headers(f, h) != 0)
        return -1;
    *ntrain = h[DNN_TRAIN_IMAGES].n;
    *ntest = h[DNN_TEST_IMAGES].n;
    return 0;
}

uint64_t dnn_fingerprint(uint64_t h, const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)p[i + b] << (8 * b);
        h = gpm_mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
    }
    for (; i < n; i++)
        h = gpm_mix64(h ^ p[i]) + 0x9e3779b97f4a7c15ull;
    return h;
}

int dnn_dataset_load(const struct dnn_files *f, struct dnn_data *d)
{
    uint64_t h = 0x646e6e2d64617461ull; /* "dnn-data" */
    memset(d, 0, sizeof *d);
    for (int k = 0; k < DNN_NPARTS; k++)
        if (dnn_idx_read(f->path[k], magic_of(k), 1, &d->part[k]) != 0)
            goto fail;
    if (check_headers(f, d->part) != 0)
        goto fail;
    for (int k = 1; k < DNN_NPARTS; k += 2)
        for (uint32_t i = 0; i < d->part[k].n; i++)
            if (d->part[k].data[i] >= DNN_CLASSES) {
                gpm_set_error("%s: label %u of item %u is not a class 0-9: pass MNIST-format "
                              "labels", f->path[k], d->part[k].data[i], i);
                goto fail;
            }
    for (int k = 0; k < DNN_NPARTS; k++) {
        const struct dnn_idx *x = &d->part[k];
        uint32_t dims[3] = {x->n, x->rows, x->cols};
        h = dnn_fingerprint(h, (const uint8_t *)dims, sizeof dims);
        h = dnn_fingerprint(h, x->data, (size_t)x->n * x->rows * x->cols);
    }
    d->ntrain = d->part[DNN_TRAIN_IMAGES].n;
    d->ntest = d->part[DNN_TEST_IMAGES].n;
    d->fingerprint = h;
    return 0;
fail:
    dnn_dataset_free(d);
    return -1;
}

void dnn_dataset_free(struct dnn_data *d)
{
    for (int k = 0; k < DNN_NPARTS; k++)
        dnn_idx_free(&d->part[k]);
}
