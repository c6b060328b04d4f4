/* For DNN's tests: IDX files written by the test itself (plain or gzip'd),
 * small MNIST-like datasets, and a scratch directory. */
#ifndef DNN_IDX_FILES_H
#define DNN_IDX_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../dnn.h"

static char test_dir[4096];

/* Makes the scratch directory (under $TMPDIR) and points GPM_DATA_DIR into
 * it; 0 or -1. */
static inline int test_dir_make(const char *name)
{
    snprintf(test_dir, sizeof test_dir, "%s/%s.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    return mkdtemp(test_dir) ? 0 : -1;
}

static inline void test_dir_remove(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", test_dir);
}

/* Writes BYTES raw bytes to PATH, gzip'd when GZ. 0 or -1. */
static inline int put_bytes(const char *path, const void *bytes, size_t n, int gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb");
        int ok = g && (n == 0 || gzwrite(g, bytes, (unsigned)n) == (int)n);
        return g && gzclose(g) == Z_OK && ok ? 0 : -1;
    } else {
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(bytes, 1, n, f) == n;
        return f && fclose(f) == 0 && ok ? 0 : -1;
    }
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* An IDX file: MAGIC, N items of ROWS x COLS (labels: ROWS = COLS = 0 in
 * the header, one byte an item), then DATA (N x ROWS x COLS bytes, or N). */
static inline int put_idx(const char *path, uint32_t magic, uint32_t n, uint32_t rows, uint32_t cols,
                   const uint8_t *data, int gz)
{
    size_t hdr = magic == DNN_IDX_IMAGES ? 16 : 8;
    size_t items = magic == DNN_IDX_IMAGES ? (size_t)n * rows * cols : n;
    uint8_t *b = (uint8_t *)malloc(hdr + items);
    int rc;
    if (!b)
        return -1;
    put_be32(b, magic);
    put_be32(b + 4, n);
    if (magic == DNN_IDX_IMAGES) {
        put_be32(b + 8, rows);
        put_be32(b + 12, cols);
    }
    memcpy(b + hdr, data, items);
    rc = put_bytes(path, b, hdr + items, gz);
    free(b);
    return rc;
}

/* A learnable MNIST-like set: item I is of class I % 10, a bright 6 x 6
 * square at a place of its class, over faint noise from SEED. The square's
 * pixels vary too, so that no two pooled values tie (where the CPU
 * reference and cuDNN might route a gradient to different ones). */
static inline void toy_item(uint64_t seed, uint32_t i, uint8_t *img, uint8_t *label)
{
    int c = (int)(i % 10), r0 = 2 + 5 * (c / 4), c0 = 2 + 6 * (c % 4);
    for (int k = 0; k < DNN_PIXELS; k++)
        img[k] = (uint8_t)(gpm_mix64(seed * 7919 + (uint64_t)i * DNN_PIXELS + k) % 40);
    for (int r = r0; r < r0 + 6; r++)
        for (int q = c0; q < c0 + 6; q++)
            img[r * DNN_IMG + q] = (uint8_t)(200 + img[r * DNN_IMG + q]);
    *label = (uint8_t)c;
}

/* DIR/PREFIX{train,t10k}-{images,labels}... of NTRAIN and NTEST toy items. */
static inline int put_toy_dataset(const char *dir, const char *prefix, uint32_t ntrain, uint32_t ntest,
                           int gz)
{
    static const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                   "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
    int rc = 0;
    for (int set = 0; set < 2 && rc == 0; set++) {
        uint32_t n = set ? ntest : ntrain;
        uint8_t *img = (uint8_t *)malloc((size_t)n * DNN_PIXELS), *lab = (uint8_t *)malloc(n);
        char p[16384];
        if (!img || !lab)
            rc = -1;
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            toy_item(set ? 2 : 1, i, img + (size_t)i * DNN_PIXELS, lab + i);
        snprintf(p, sizeof p, "%s/%s%s%s", dir, prefix, names[2 * set], gz ? ".gz" : "");
        rc = rc ? rc : put_idx(p, DNN_IDX_IMAGES, n, DNN_IMG, DNN_IMG, img, gz);
        snprintf(p, sizeof p, "%s/%s%s%s", dir, prefix, names[2 * set + 1], gz ? ".gz" : "");
        rc = rc ? rc : put_idx(p, DNN_IDX_LABELS, n, 0, 0, lab, gz);
        free(img);
        free(lab);
    }
    return rc;
}

#endif
