/* CFD meshes in memory and in Rodinia's text format. The reader checks
 * what Rodinia's does not: a count that fits, numbers where numbers must
 * be, neighbours in range, finite normals and positive volumes, and says
 * where (file and line) a file is cut short or corrupt. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfd_mesh.h"
#include "gpm/gpm.h"

int cfd_mesh_alloc(struct cfd_mesh *m, uint64_t n)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->vol = malloc(n * sizeof *m->vol);
    m->nb = malloc(n * CFD_NNB * sizeof *m->nb);
    m->normal = malloc(n * CFD_NNB * 3 * sizeof *m->normal);
    if (m->vol && m->nb && m->normal)
        return 0;
    cfd_mesh_free(m);
    return -1;
}

void cfd_mesh_free(struct cfd_mesh *m)
{
    free(m->vol);
    free(m->nb);
    free(m->normal);
    m->vol = NULL;
    m->nb = NULL;
    m->normal = NULL;
}

static uint64_t hash_words(uint64_t h, const void *p, size_t bytes)
{
    const uint32_t *w = p;
    for (size_t k = 0; k < bytes / 4; k++)
        h = gpm_mix64(h ^ w[k]) + k;
    return h;
}

uint64_t cfd_mesh_hash(const struct cfd_mesh *m)
{
    uint64_t h = gpm_mix64(m->n + 0x43464431ull);
    h = hash_words(h, m->vol, m->n * sizeof *m->vol);
    h = hash_words(h, m->nb, m->n * CFD_NNB * sizeof *m->nb);
    return hash_words(h, m->normal, m->n * CFD_NNB * 3 * sizeof *m->normal);
}

/* ---- reading ---- */

struct scan {
    const char *path;
    const char *p, *end;
    long line;      /* of the scan position */
    long tok_line;  /* of the last token read (1 before any) */
};

/* The next whitespace-separated token: its bounds, and its line. 0 at the end. */
static int next_token(struct scan *s, const char **tok, size_t *len)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r' ||
                             *s->p == '\f' || *s->p == '\v')) {
        if (*s->p == '\n')
            s->line++;
        s->p++;
    }
    if (s->p == s->end)
        return 0;
    *tok = s->p;
    s->tok_line = s->line;
    while (s->p < s->end && !(*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r' ||
                              *s->p == '\f' || *s->p == '\v'))
        s->p++;
    *len = (size_t)(s->p - *tok);
    return 1;
}

/* WHAT, for messages: "element 3 face 2's neighbour". */
static int truncated(const struct scan *s, const char *what)
{
    return gpm_set_error("%s:%ld: cut short before %s: the file is truncated; fetch it again "
                         "(datasets/fetch.sh) or pass --mesh gen", s->path, s->tok_line, what);
}

static int not_a(const struct scan *s, const char *kind, const char *tok, size_t len,
                 const char *what)
{
    return gpm_set_error("%s:%ld: '%.*s' is not %s (%s): the file is corrupt; fetch it again "
                         "(datasets/fetch.sh) or pass --mesh gen", s->path, s->line,
                         (int)(len > 40 ? 40 : len), tok, kind, what);
}

static int read_int(struct scan *s, long long *out, const char *what)
{
    const char *tok;
    char buf[48], *endp;
    size_t len;
    if (!next_token(s, &tok, &len))
        return truncated(s, what);
    if (len >= sizeof buf)
        return not_a(s, "an integer", tok, len, what);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtoll(buf, &endp, 10);
    if (*endp || errno)
        return not_a(s, "an integer", tok, len, what);
    return 0;
}

static int read_float(struct scan *s, float *out, const char *what)
{
    const char *tok;
    char buf[64], *endp;
    size_t len;
    if (!next_token(s, &tok, &len))
        return truncated(s, what);
    if (len >= sizeof buf)
        return not_a(s, "a number", tok, len, what);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    *out = strtof(buf, &endp);
    if (*endp || endp == buf || !isfinite(*out))
        return not_a(s, "a finite number", tok, len, what);
    return 0;
}

/* The whole file in memory (the format needs no more than one pass). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (!f) {
        gpm_set_error("%s: cannot open the mesh (%s): pass an existing file to --mesh, or "
                      "--mesh gen", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        *len = (size_t)size;
        fclose(f);
        return buf;
    }
    gpm_set_error("%s: cannot read the mesh (%s): check the file", path,
                  buf ? strerror(errno) : "out of memory");
    free(buf);
    fclose(f);
    return NULL;
}

static int parse(struct cfd_mesh *m, struct scan *s)
{
    long long count, nb;
    char what[96];
    uint64_t n;
    if (read_int(s, &count, "the element count") != 0)
        return -1;
    if (count < 1 || count > CFD_MAX_ELEMENTS)
        return gpm_set_error("%s:%ld: element count %lld is out of range 1..%lld: the file is "
                             "corrupt, or not a mesh", s->path, s->line, count, CFD_MAX_ELEMENTS);
    n = (uint64_t)count;
    if (cfd_mesh_alloc(m, n) != 0)
        return gpm_set_error("%s: out of memory for %llu elements", s->path,
                             (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        float *vol = &m->vol[i];
        snprintf(what, sizeof what, "element %llu's volume", (unsigned long long)i + 1);
        if (read_float(s, vol, what) != 0)
            return -1;
        if (!(*vol > 0))
            return gpm_set_error("%s:%ld: element %llu has volume %g: a volume must be "
                                 "positive; the file is corrupt", s->path, s->line,
                                 (unsigned long long)i + 1, (double)*vol);
        for (int j = 0; j < CFD_NNB; j++) {
            snprintf(what, sizeof what, "element %llu face %d's neighbour",
                     (unsigned long long)i + 1, j + 1);
            if (read_int(s, &nb, what) != 0)
                return -1;
            if (nb > count)
                return gpm_set_error("%s:%ld: element %llu face %d: neighbour %lld is out of "
                                     "range (1..%lld; 0 a wall, negative the far field): the "
                                     "file is corrupt", s->path, s->line,
                                     (unsigned long long)i + 1, j + 1, nb, count);
            /* 1-based in the file; 0 a wall, negative the far field. */
            m->nb[cfd_nb_at(n, i, j)] = nb > 0 ? (int32_t)(nb - 1) : nb == 0 ? CFD_WALL
                                                                             : CFD_FAR_FIELD;
            for (int a = 0; a < 3; a++) {
                float x;
                snprintf(what, sizeof what, "element %llu face %d's normal",
                         (unsigned long long)i + 1, j + 1);
                if (read_float(s, &x, what) != 0)
                    return -1;
                m->normal[cfd_normal_at(n, i, j, a)] = -x; /* outward in the file */
            }
        }
    }
    return 0;
}

int cfd_mesh_read_text(struct cfd_mesh *m, const char *path)
{
    size_t len = 0;
    char *buf = slurp(path, &len);
    struct scan s = {path, buf, buf + len, 1, 1};
    int rc;
    memset(m, 0, sizeof *m);
    if (!buf)
        return -1;
    rc = parse(m, &s);
    free(buf);
    if (rc != 0) {
        cfd_mesh_free(m);
        return -1;
    }
    m->hash = cfd_mesh_hash(m);
    return 0;
}

/* ---- writing ---- */

int cfd_mesh_write_text(const struct cfd_mesh *m, const char *path)
{
    FILE *f = fopen(path, "w");
    int ok;
    if (!f)
        return gpm_set_error("%s: cannot create the mesh file (%s): check the directory", path,
                             strerror(errno));
    ok = fprintf(f, "%llu\n", (unsigned long long)m->n) > 0;
    for (uint64_t i = 0; ok && i < m->n; i++) {
        /* %.9g: every float reads back as itself. */
        ok = fprintf(f, "%.9g", (double)m->vol[i]) > 0;
        for (int j = 0; ok && j < CFD_NNB; j++) {
            int32_t nb = m->nb[cfd_nb_at(m->n, i, j)];
            ok = fprintf(f, " %ld", nb >= 0 ? (long)nb + 1 : nb == CFD_WALL ? 0L : -1L) > 0;
            for (int a = 0; ok && a < 3; a++)
                ok = fprintf(f, " %.9g", -(double)m->normal[cfd_normal_at(m->n, i, j, a)]) > 0;
        }
        ok = ok && fputc('\n', f) != EOF;
    }
    if (fclose(f) != 0 || !ok)
        return gpm_set_error("%s: cannot write the mesh file (%s): check free space", path,
                             strerror(errno));
    return 0;
}
