/* DNN's IDX reader on files the test writes: plain and gzip'd files read
 * back the same, and every kind of bad file (truncated header or data,
 * bad magic, bytes after the last item, no items, corrupt gzip, missing)
 * is one line naming the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "idx_files.h"

static const char *path_of(const char *name)
{
    static char p[8192];
    snprintf(p, sizeof p, "%s/%s", test_dir, name);
    return p;
}

static void images_and_labels_read_back_plain_and_gzipped(void)
{
    uint8_t img[3 * DNN_PIXELS], lab[3] = {7, 0, 9};
    struct dnn_idx x;
    for (int i = 0; i < 3 * DNN_PIXELS; i++)
        img[i] = (uint8_t)(i * 13);
    for (int gz = 0; gz < 2; gz++) {
        const char *p = path_of(gz ? "img.gz" : "img");
        CHECK(put_idx(p, DNN_IDX_IMAGES, 3, DNN_IMG, DNN_IMG, img, gz) == 0);
        CHECKF(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x) == 0, "%s", gpm_last_error());
        CHECK(x.n == 3 && x.rows == DNN_IMG && x.cols == DNN_IMG);
        CHECK(memcmp(x.data, img, sizeof img) == 0);
        dnn_idx_free(&x);
        CHECK(x.data == NULL);
        /* The header alone. */
        CHECK(dnn_idx_read(p, DNN_IDX_IMAGES, 0, &x) == 0 && x.n == 3 && x.data == NULL);
        p = path_of(gz ? "lab.gz" : "lab");
        CHECK(put_idx(p, DNN_IDX_LABELS, 3, 0, 0, lab, gz) == 0);
        CHECKF(dnn_idx_read(p, DNN_IDX_LABELS, 1, &x) == 0, "%s", gpm_last_error());
        CHECK(x.n == 3 && x.rows == 1 && x.cols == 1 && memcmp(x.data, lab, 3) == 0);
        dnn_idx_free(&x);
    }
}

/* An images file of 2 items cut to LEN bytes. */
static const char *cut_images(const char *name, size_t len, int gz)
{
    uint8_t full[16 + 2 * DNN_PIXELS] = {0};
    const char *p = path_of(name);
    put_be32(full, DNN_IDX_IMAGES);
    put_be32(full + 4, 2);
    put_be32(full + 8, DNN_IMG);
    put_be32(full + 12, DNN_IMG);
    return put_bytes(p, full, len, gz) == 0 ? p : NULL;
}

static void truncated_files_name_the_file(void)
{
    struct dnn_idx x;
    const char *p = cut_images("short-hdr", 10, 0);
    CHECK(p);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), p);
    CHECK_MSG(gpm_last_error(), "truncated: the file ends inside its 16-byte IDX header");
    p = cut_images("empty", 0, 0);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 0, &x), -1);
    CHECK_MSG(gpm_last_error(), "truncated");
    for (int gz = 0; gz < 2; gz++) {
        p = cut_images(gz ? "short-data.gz" : "short-data", 16 + DNN_PIXELS + 5, gz);
        CHECK(p);
        /* The header is fine: only reading the items finds the cut. */
        CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 0, &x), 0);
        CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x), -1);
        CHECK_MSG(gpm_last_error(), p);
        CHECK_MSG(gpm_last_error(), "truncated: its header says 2 items of 28 x 28 bytes (1568 "
                                    "bytes), the file ends after 789");
        CHECK(x.data == NULL);
    }
}

static void bad_magic_is_refused(void)
{
    uint8_t lab[4] = {1, 2, 3, 4};
    struct dnn_idx x;
    const char *p = path_of("labels-as-images");
    CHECK(put_idx(p, DNN_IDX_LABELS, 4, 0, 0, lab, 0) == 0);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), p);
    CHECK_MSG(gpm_last_error(), "not an IDX file of images (magic 0x00000801, expected "
                                "0x00000803)");
    /* Text is not an IDX file either (and little-endian sizes are caught
     * by the magic's byte order too). */
    p = path_of("text");
    CHECK(put_bytes(p, "hello, world\n", 13, 0) == 0);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_LABELS, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), "not an IDX file of labels");
}

static void size_mismatch_is_refused(void)
{
    uint8_t lab[5] = {1, 2, 3, 4, 5};
    struct dnn_idx x;
    const char *p = path_of("labels-extra");
    /* Five labels written, four announced. */
    CHECK(put_idx(p, DNN_IDX_LABELS, 5, 0, 0, lab, 0) == 0);
    {
        uint8_t b[8 + 5];
        put_be32(b, DNN_IDX_LABELS);
        put_be32(b + 4, 4);
        memcpy(b + 8, lab, 5);
        CHECK(put_bytes(p, b, sizeof b, 0) == 0);
    }
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_LABELS, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), p);
    CHECK_MSG(gpm_last_error(), "size mismatch: bytes follow the 4 items");
    p = path_of("no-items");
    CHECK(put_idx(p, DNN_IDX_IMAGES, 0, DNN_IMG, DNN_IMG, lab, 0) == 0);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 0, &x), -1);
    CHECK_MSG(gpm_last_error(), "no items");
}

static void corrupt_gzip_and_missing_files_are_named(void)
{
    uint8_t img[DNN_PIXELS * 4];
    struct dnn_idx x;
    size_t len;
    unsigned char *b;
    const char *p = path_of("corrupt.gz");
    for (size_t i = 0; i < sizeof img; i++)
        img[i] = (uint8_t)(gpm_mix64(i) & 0xff);
    CHECK(put_idx(p, DNN_IDX_IMAGES, 4, DNN_IMG, DNN_IMG, img, 1) == 0);
    b = check_read_file(p, &len);
    CHECK(b && len > 100);
    for (size_t i = 20; i < len - 8; i += 7) /* the deflate stream, not the gzip header */
        b[i] ^= 0x5a;
    CHECK(put_bytes(p, b, len, 0) == 0);
    free(b);
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), p);
    CHECK_MSG(gpm_last_error(), "corrupt compressed data");
    p = path_of("missing");
    CHECK_EQ_INT(dnn_idx_read(p, DNN_IDX_IMAGES, 1, &x), -1);
    CHECK_MSG(gpm_last_error(), p);
    CHECK_MSG(gpm_last_error(), "cannot open (No such file or directory)");
}

int main(void)
{
    if (test_dir_make("dnn-idx") != 0) {
        printf("not ok - setup: cannot make a scratch directory\n");
        return 1;
    }
    RUN(images_and_labels_read_back_plain_and_gzipped);
    RUN(truncated_files_name_the_file);
    RUN(bad_magic_is_refused);
    RUN(size_mismatch_is_refused);
    RUN(corrupt_gzip_and_missing_files_are_named);
    test_dir_remove();
    CHECK_EXIT();
}
