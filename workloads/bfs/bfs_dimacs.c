/* The reader of 9th DIMACS Implementation Challenge shortest-path files
 * (the USA-road-d family): "c" comments, one problem line "p sp N M", then
 * M arc lines "a U V W" with 1-based ids. Arcs are directed (road networks
 * list both directions); BFS ignores the weights but the reader checks that
 * each is an integer. Every error names the file and the line. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bfs_graph.h"
#include "bfs_layout.h"
#include "gpm/gpm.h"

struct reader {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    unsigned long long lineno;
};

static int bad(const struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const struct reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gpm_set_error("%s:%llu: %s", r->path, r->lineno, msg);
}

static int open_reader(struct reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    if (!r->f)
        return gpm_set_error("%s: cannot open the graph (%s): pass the path of an uncompressed "
                             "DIMACS .gr file (gunzip the .gr.gz first), or --graph gen", path,
                             strerror(errno));
    return 0;
}

static void close_reader(struct reader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->line);
    r->f = NULL;
    r->line = NULL;
}

/* 1: a line is in r->line; 0: end of file; -1: a read error. */
static int next_line(struct reader *r)
{
    ssize_t n = getline(&r->line, &r->cap, r->f);
    if (n < 0) {
        if (ferror(r->f))
            return gpm_set_error("%s: read error after line %llu (%s)", r->path, r->lineno,
                                 strerror(errno));
        return 0;
    }
    r->lineno++;
    return 1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* An unsigned decimal field at *P (after blanks), ended by a blank or the
 * line's end; advances *P. 0 if there is none or it overflows. */
static int field_u64(const char **p, uint64_t *out)
{
    const char *s = skip_space(*p);
    uint64_t v = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (*s && !is_space(*s))
        return 0;
    *p = s;
    *out = v;
    return 1;
}

/* A signed decimal field (an arc weight). */
static int field_i64(const char **p)
{
    const char *s = skip_space(*p);
    uint64_t v;
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9' || !field_u64(&s, &v) || v > (uint64_t)INT64_MAX + 1)
        return 0;
    *p = s;
    return 1;
}

/* Nothing but blanks left on the line. */
static int at_end(const char *p)
{
    while (*p && is_space(*p))
        p++;
    return *p == '\0';
}

static int blank_line(const char *p) { return at_end(p); }

/* "p sp N M": N and M checked against what the layout can index. */
static int problem_line(const struct reader *r, uint64_t *n, uint64_t *m)
{
    const char *p = r->line + 1;
    if (!is_space(*p))
        return bad(r, "malformed problem line: expected 'p sp N M'");
    p = skip_space(p);
    if (strncmp(p, "sp", 2) != 0 || !is_space(p[2]))
        return bad(r, "problem line of another type: expected 'p sp N M' (a shortest-path "
                      "graph)");
    p += 2;
    if (!field_u64(&p, n) || !field_u64(&p, m) || !at_end(p))
        return bad(r, "malformed problem line: expected 'p sp N M' with two counts");
    if (*n == 0 || *n >= BFS_MAX_NODES)
        return bad(r, "%llu nodes: the search takes 1 to %llu", (unsigned long long)*n,
                   (unsigned long long)BFS_MAX_NODES - 1);
    if (*m > BFS_DIMACS_MAX_ARCS)
        return bad(r, "%llu arcs: the search takes at most %llu", (unsigned long long)*m,
                   BFS_DIMACS_MAX_ARCS);
    return 0;
}

/* Reads up to and including the problem line. */
static int read_problem(struct reader *r, uint64_t *n, uint64_t *m)
{
    int rc;
    while ((rc = next_line(r)) == 1) {
        if (blank_line(r->line) || r->line[0] == 'c')
            continue;
        if (r->line[0] == 'p')
            return problem_line(r, n, m);
        if (r->line[0] == 'a')
            return bad(r, "arc before the problem line: the file must declare 'p sp N M' first");
        return bad(r, "malformed line: expected a comment 'c ...' or the problem line "
                      "'p sp N M'");
    }
    if (rc < 0)
        return -1;
    return gpm_set_error("%s:%llu: no problem line 'p sp N M': is it a DIMACS .gr file "
                         "(gunzipped)?", r->path, r->lineno);
}

int bfs_dimacs_nodes(const char *path, uint64_t *n)
{
    struct reader r;
    uint64_t m;
    int rc;
    if (open_reader(&r, path) != 0)
        return -1;
    rc = read_problem(&r, n, &m);
    close_reader(&r);
    return rc;
}

/* The arcs (tail, head), 0-based, as the file lists them into a CSR: each
 * node's arcs keep the file's order. */
static int to_csr(struct bfs_graph *g, uint64_t n, uint64_t m, const uint32_t *tail,
                  const uint32_t *head)
{
    if (bfs_graph_alloc(g, n, m) != 0)
        return -1;
    memset(g->row, 0, (n + 1) * sizeof *g->row);
    for (uint64_t k = 0; k < m; k++)
        g->row[tail[k] + 1]++;
    for (uint64_t u = 0; u < n; u++)
        g->row[u + 1] += g->row[u];
    for (uint64_t k = 0; k < m; k++)
        g->col[g->row[tail[k]]++] = head[k]; /* row[u] moves to u's end */
    for (uint64_t u = n; u > 0; u--)
        g->row[u] = g->row[u - 1];
    g->row[0] = 0;
    return 0;
}

static int arc_line(const struct reader *r, uint64_t n, uint32_t *tail, uint32_t *head)
{
    const char *p = r->line + 1;
    uint64_t u, v;
    if (!is_space(*p) || !field_u64(&p, &u) || !field_u64(&p, &v) || !field_i64(&p) ||
        !at_end(p))
        return bad(r, "malformed arc line: expected 'a U V W' (ids and an integer weight)");
    if (u < 1 || u > n)
        return bad(r, "node id %llu out of range: ids run from 1 to %llu",
                   (unsigned long long)u, (unsigned long long)n);
    if (v < 1 || v > n)
        return bad(r, "node id %llu out of range: ids run from 1 to %llu",
                   (unsigned long long)v, (unsigned long long)n);
    *tail = (uint32_t)(u - 1);
    *head = (uint32_t)(v - 1);
    return 0;
}

int bfs_dimacs_read(const char *path, struct bfs_graph *g)
{
    struct reader r;
    uint64_t n = 0, m = 0, k = 0, pline = 0;
    uint32_t *tail = NULL, *head = NULL;
    int rc = -1, got;
    memset(g, 0, sizeof *g);
    if (open_reader(&r, path) != 0)
        return -1;
    if (read_problem(&r, &n, &m) != 0)
        goto out;
    pline = r.lineno;
    tail = malloc((m ? m : 1) * sizeof *tail);
    head = malloc((m ? m : 1) * sizeof *head);
    if (!tail || !head) {
        gpm_set_error("%s: cannot allocate %llu arcs: use a machine with more memory",
                      path, (unsigned long long)m);
        goto out;
    }
    while ((got = next_line(&r)) == 1) {
        if (blank_line(r.line) || r.line[0] == 'c')
            continue;
        if (r.line[0] == 'p') {
            bad(&r, "a second problem line (the first is line %llu): one 'p sp N M' per file",
                (unsigned long long)pline);
            goto out;
        }
        if (r.line[0] != 'a') {
            bad(&r, "malformed line: expected a comment 'c ...' or an arc 'a U V W'");
            goto out;
        }
        if (k == m) {
            bad(&r, "more arcs than the %llu the problem line (line %llu) declares",
                (unsigned long long)m, (unsigned long long)pline);
            goto out;
        }
        if (arc_line(&r, n, &tail[k], &head[k]) != 0)
            goto out;
        k++;
    }
    if (got < 0)
        goto out;
    if (k < m) {
        gpm_set_error("%s:%llu: truncated: the file ends after %llu of the %llu arcs its "
                      "problem line (line %llu) declares: download and gunzip it again",
                      path, r.lineno, (unsigned long long)k, (unsigned long long)m,
                      (unsigned long long)pline);
        goto out;
    }
    if (to_csr(g, n, m, tail, head) != 0)
        goto out;
    g->sum = bfs_graph_sum(g);
    rc = 0;
out:
    free(tail);
    free(head);
    close_reader(&r);
    return rc;
}
