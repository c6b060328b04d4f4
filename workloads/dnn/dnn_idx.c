/* The IDX format of MNIST's files: a 4-byte magic (two zero bytes, the
 * element type 0x08 = unsigned byte, the number of dimensions), one
 * big-endian 32-bit size per dimension, then the elements. Files are read
 * through zlib's gzread, which reads gzip'd and plain files alike: Debian's
 * Fashion-MNIST and the published MNIST files are gzip'd, and decompressing
 * in memory needs no cache to keep in step with its source. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dnn.h"

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Reads exactly LEN bytes: 0, 1 if the file ends first (*GOT bytes read),
 * -1 on corrupt data (message set). */
static int read_all(gzFile g, const char *path, uint8_t *buf, size_t len, size_t *got)
{
    *got = 0;
    while (*got < len) {
        size_t want = len - *got > (1u << 30) ? (1u << 30) : len - *got;
        int n = gzread(g, buf + *got, (unsigned)want);
        if (n < 0) {
            int e;
            const char *why = gzerror(g, &e);
            return gpm_set_error("%s: corrupt compressed data (%s): fetch or reinstall the file",
                                 path, e == Z_ERRNO ? strerror(errno) : why);
        }
        if (n == 0)
            return 1;
        *got += (size_t)n;
    }
    return 0;
}

static int read_idx(gzFile g, const char *path, uint32_t magic, int data, struct dnn_idx *x)
{
    uint8_t h[16], extra;
    size_t got, hdr = magic == DNN_IDX_IMAGES ? 16 : 8, items;
    int rc = read_all(g, path, h, hdr, &got);
    if (rc < 0)
        return -1;
    if (got >= 4 && be32(h) != magic)
        return gpm_set_error("%s: not an IDX file of %s (magic 0x%08x, expected 0x%08x): pass "
                             "MNIST-format files", path,
                             magic == DNN_IDX_IMAGES ? "images" : "labels", be32(h), magic);
    if (rc == 1)
        return gpm_set_error("%s: truncated: the file ends inside its %zu-byte IDX header "
                             "(after %zu bytes)", path, hdr, got);
    x->magic = magic;
    x->n = be32(h + 4);
    x->rows = magic == DNN_IDX_IMAGES ? be32(h + 8) : 1;
    x->cols = magic == DNN_IDX_IMAGES ? be32(h + 12) : 1;
    if (x->n == 0 || x->rows == 0 || x->cols == 0)
        return gpm_set_error("%s: the IDX header says %u x %u x %u: no items", path, x->n,
                             x->rows, x->cols);
    items = (size_t)x->n * x->rows * x->cols;
    if (!data)
        return 0;
    if (!(x->data = malloc(items)))
        return gpm_set_error("%s: out of memory for %zu bytes", path, items);
    if ((rc = read_all(g, path, x->data, items, &got)) < 0)
        return -1;
    if (rc == 1)
        return gpm_set_error("%s: truncated: its header says %u items of %u x %u bytes (%zu "
                             "bytes), the file ends after %zu", path, x->n, x->rows, x->cols,
                             items, got);
    if ((rc = read_all(g, path, &extra, 1, &got)) < 0)
        return -1;
    if (rc == 0)
        return gpm_set_error("%s: size mismatch: bytes follow the %u items its header "
                             "announces: a damaged file or another format", path, x->n);
    return 0;
}

int dnn_idx_read(const char *path, uint32_t magic, int data, struct dnn_idx *out)
{
    gzFile g;
    int rc;
    memset(out, 0, sizeof *out);
    errno = 0;
    if (!(g = gzopen(path, "rb")))
        return gpm_set_error("%s: cannot open (%s)", path,
                             errno ? strerror(errno) : "out of memory");
    rc = read_idx(g, path, magic, data, out);
    gzclose(g);
    if (rc != 0)
        dnn_idx_free(out);
    return rc;
}

void dnn_idx_free(struct dnn_idx *x)
{
    free(x->data);
    x->data = NULL;
}
