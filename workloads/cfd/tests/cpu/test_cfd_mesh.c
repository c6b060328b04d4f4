/* CFD's input on the CPU: the generator (exact counts, deterministic,
 * consistent faces), the reader of Rodinia's format (good files, and
 * truncated, corrupt and out-of-range ones named with their line), and the
 * binary cache (parsed once, rebuilt when the source changes or the cache
 * is damaged). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cfd_mesh.h"
#include "gpm/check.h"

static char dir[4096];

/* Removes DIR and what the cases left in it (a failed case returns early). */
static void remove_all(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[8400];
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static int same_mesh(const struct cfd_mesh *a, const struct cfd_mesh *b)
{
    return a->n == b->n && memcmp(a->vol, b->vol, a->n * sizeof *a->vol) == 0 &&
           memcmp(a->nb, b->nb, a->n * CFD_NNB * sizeof *a->nb) == 0 &&
           memcmp(a->normal, b->normal, a->n * CFD_NNB * 3 * sizeof *a->normal) == 0 &&
           a->hash == b->hash;
}

static void generator_is_exact_and_deterministic(void)
{
    static const uint64_t counts[] = {64, 1001, 4096, 97000, 232536};
    struct cfd_mesh a, b, c;
    struct cfd_gen g = {4096, 1, 1};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        g.elements = counts[k];
        CHECK(cfd_mesh_generate(&a, &g) == 0);
        CHECK_EQ_INT(a.n, counts[k]);
        cfd_mesh_free(&a);
    }
    g.elements = 4096;
    CHECK(cfd_mesh_generate(&a, &g) == 0 && cfd_mesh_generate(&b, &g) == 0);
    CHECK(same_mesh(&a, &b) && a.hash == cfd_mesh_hash(&a));
    g.seed = 2;
    CHECK(cfd_mesh_generate(&c, &g) == 0);
    CHECK(c.hash != a.hash);
    CHECK(memcmp(a.nb, c.nb, a.n * CFD_NNB * sizeof *a.nb) == 0); /* same topology */
    cfd_mesh_free(&a);
    cfd_mesh_free(&b);
    cfd_mesh_free(&c);
    g.elements = 0;
    CHECK_EQ_INT(cfd_mesh_generate(&a, &g), -1);
    CHECK_MSG(gpm_last_error(), "--elements");
}

/* Every interior face is seen from both sides with exactly opposite
 * normals; every element is a closed tetrahedron of positive volume; the
 * body gives walls, the box and the cut-off layer far field. */
static void generated_faces_are_consistent(void)
{
    struct cfd_mesh m;
    struct cfd_gen g = {5000, 7, 1};
    uint64_t walls = 0, far = 0, n;
    CHECK(cfd_mesh_generate(&m, &g) == 0);
    n = m.n;
    for (uint64_t i = 0; i < n; i++) {
        double sum[3] = {0, 0, 0}, area = 0;
        CHECKF(m.vol[i] > 0, "element %d has volume %g", (int)i, (double)m.vol[i]);
        for (int j = 0; j < CFD_NNB; j++) {
            int32_t o = m.nb[cfd_nb_at(n, i, j)];
            double a2 = 0;
            for (int a = 0; a < 3; a++) {
                double x = m.normal[cfd_normal_at(n, i, j, a)];
                sum[a] += x;
                a2 += x * x;
            }
            area += sqrt(a2);
            walls += o == CFD_WALL;
            far += o == CFD_FAR_FIELD;
            if (o >= 0) {
                int back = -1, seen = 0;
                CHECKF((uint64_t)o < n && (uint64_t)o != i, "element %d face %d: %d", (int)i,
                       j, (int)o);
                for (int k = 0; k < CFD_NNB; k++)
                    if (m.nb[cfd_nb_at(n, (uint64_t)o, k)] == (int32_t)i) {
                        back = k;
                        seen++;
                    }
                CHECKF(seen == 1, "element %d face %d: %d sees it %d times", (int)i, j, (int)o,
                       seen);
                for (int a = 0; a < 3; a++)
                    CHECKF(m.normal[cfd_normal_at(n, (uint64_t)o, back, a)] ==
                               -m.normal[cfd_normal_at(n, i, j, a)],
                           "element %d face %d: normals not opposite", (int)i, j);
            } else
                CHECK(o == CFD_WALL || o == CFD_FAR_FIELD);
        }
        for (int a = 0; a < 3; a++)
            CHECKF(fabs(sum[a]) < 1e-6 * area, "element %d is not closed: %g of %g", (int)i,
                   sum[a], area);
    }
    CHECK(walls > 100 && far > 100);
    cfd_mesh_free(&m);
    g.body = 0;
    CHECK(cfd_mesh_generate(&m, &g) == 0);
    for (uint64_t k = 0; k < m.n * CFD_NNB; k++)
        CHECK(m.nb[k] != CFD_WALL);
    cfd_mesh_free(&m);
}

/* Two elements by hand: markers (0 a wall, any negative the far field,
 * 1-based neighbours) and normals (outward in the file) as Rodinia reads
 * them, whatever the whitespace. */
static void reader_reads_rodinia_format(void)
{
    char p[4200];
    struct cfd_mesh m;
    path_of(p, sizeof p, "two.domn");
    CHECK(check_write_file(p, "2\n"
                        "0.5  2 1 0 0   0 0 1 0\n -1 0 0 1   -7 1.5e-1 -2 3\n"
                        "\t0.25 1 -1 0 0 0 0 0 1\r\n-3 0 -1 0 -1 0 0 -1\n") == 0);
    CHECKF(cfd_mesh_read_text(&m, p) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(m.n, 2);
    CHECK(m.vol[0] == 0.5f && m.vol[1] == 0.25f);
    CHECK_EQ_INT(m.nb[cfd_nb_at(2, 0, 0)], 1);
    CHECK_EQ_INT(m.nb[cfd_nb_at(2, 0, 1)], CFD_WALL);
    CHECK_EQ_INT(m.nb[cfd_nb_at(2, 0, 2)], CFD_FAR_FIELD);
    CHECK_EQ_INT(m.nb[cfd_nb_at(2, 0, 3)], CFD_FAR_FIELD);
    CHECK_EQ_INT(m.nb[cfd_nb_at(2, 1, 0)], 0);
    CHECK(m.normal[cfd_normal_at(2, 0, 0, 0)] == -1.0f);
    CHECK(m.normal[cfd_normal_at(2, 0, 3, 0)] == -0.15f);
    CHECK(m.normal[cfd_normal_at(2, 0, 3, 2)] == -3.0f);
    CHECK(m.normal[cfd_normal_at(2, 1, 0, 0)] == 1.0f);
    CHECK(m.hash == cfd_mesh_hash(&m));
    cfd_mesh_free(&m);
    unlink(p);
}

static void written_mesh_reads_back_identical(void)
{
    char p[4200];
    struct cfd_mesh a, b;
    struct cfd_gen g = {3000, 5, 1};
    path_of(p, sizeof p, "gen.domn");
    CHECK(cfd_mesh_generate(&a, &g) == 0);
    CHECKF(cfd_mesh_write_text(&a, p) == 0, "%s", gpm_last_error());
    CHECKF(cfd_mesh_read_text(&b, p) == 0, "%s", gpm_last_error());
    CHECK(same_mesh(&a, &b));
    cfd_mesh_free(&a);
    cfd_mesh_free(&b);
    unlink(p);
}

/* Each bad file is refused with its name, the line and what is wrong. */
static void reader_names_file_and_line_of_bad_input(void)
{
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"2\n1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n1 1 -1 0", "bad.domn:3: cut short before "
                                                               "element 2 face 1's normal"},
        {"3\n1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n", "bad.domn:2: cut short before element 2's "
                                                     "volume"},
        {"", "bad.domn:1: cut short before the element count"},
        {"2\n1 2 1 0 0 0 0 1 0\n-1 0 0 1 -1 1 x1 1\n", "bad.domn:3: 'x1' is not a finite number "
                                                       "(element 1 face 4's normal)"},
        {"2\n1 2.5 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n", "bad.domn:2: '2.5' is not an integer "
                                                       "(element 1 face 1's neighbour)"},
        {"2\n1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n1 3 1 0 0", "bad.domn:3: element 2 face 1: "
                                                              "neighbour 3 is out of range"},
        {"2\n1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 nan\n", "'nan' is not a finite number"},
        {"2\n-1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n", "bad.domn:2: element 1 has volume -1"},
        {"0\n", "bad.domn:1: element count 0 is out of range"},
        {"abc\n", "bad.domn:1: 'abc' is not an integer (the element count)"},
        {"99999999999\n", "element count 99999999999 is out of range"},
    };
    char p[4200];
    struct cfd_mesh m;
    path_of(p, sizeof p, "bad.domn");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK(check_write_file(p, bad[k].text) == 0);
        CHECKF(cfd_mesh_read_text(&m, p) == -1, "case %d read", (int)k);
        CHECKF(strstr(gpm_last_error(), bad[k].needle) != NULL, "case %d: \"%s\" lacks \"%s\"",
               (int)k, gpm_last_error(), bad[k].needle);
        CHECK(m.vol == NULL && m.nb == NULL && m.normal == NULL);
        CHECK(strchr(gpm_last_error(), '\n') == NULL);
    }
    unlink(p);
    CHECK_EQ_INT(cfd_mesh_read_text(&m, p), -1);
    CHECK_MSG(gpm_last_error(), "cannot open the mesh");
}

static void corrupt_byte(const char *path, long off)
{
    FILE *f = fopen(path, "r+b");
    int c;
    if (!f)
        return;
    fseek(f, off, SEEK_SET);
    c = fgetc(f);
    fseek(f, off, SEEK_SET);
    fputc(c ^ 0x40, f);
    fclose(f);
}

/* Parsed once, then read from the cache; rebuilt when the source changes
 * (size or time) or when the cache is damaged or cut short. */
static void cache_parses_once_and_rebuilds(void)
{
    char src[4200], cpath[8400];
    struct cfd_mesh a, b, c;
    struct cfd_gen g = {2000, 9, 1};
    enum cfd_cache_state st;
    struct stat s;
    path_of(src, sizeof src, "cached.domn");
    CHECK(cfd_mesh_generate(&a, &g) == 0 && cfd_mesh_write_text(&a, src) == 0);
    CHECK(cfd_cache_path(src, dir, cpath, sizeof cpath) == 0);
    unlink(cpath);
    CHECKF(cfd_mesh_load(&b, src, dir, &st) == 0, "%s", gpm_last_error());
    CHECK(st == CFD_CACHE_BUILT && same_mesh(&a, &b));
    cfd_mesh_free(&b);
    CHECK(cfd_mesh_load(&b, src, dir, &st) == 0);
    CHECK(st == CFD_CACHE_HIT && same_mesh(&a, &b));
    cfd_mesh_free(&b);
    /* A damaged array, then a cache cut short: both rebuilt from the source. */
    CHECK(stat(cpath, &s) == 0);
    corrupt_byte(cpath, (long)s.st_size - 5);
    CHECK(cfd_mesh_load(&b, src, dir, &st) == 0);
    CHECK(st == CFD_CACHE_REBUILT && same_mesh(&a, &b));
    cfd_mesh_free(&b);
    CHECK(truncate(cpath, s.st_size - 100) == 0);
    CHECK(cfd_mesh_load(&b, src, dir, &st) == 0);
    CHECK(st == CFD_CACHE_REBUILT && same_mesh(&a, &b));
    cfd_mesh_free(&b);
    /* Another mesh under the same name (dated 10 s later, as on a file
     * system with coarse times): the cache follows the source. */
    g.seed = 10;
    g.elements = 2100;
    CHECK(cfd_mesh_generate(&c, &g) == 0 && cfd_mesh_write_text(&c, src) == 0);
    CHECK(stat(src, &s) == 0);
    {
        struct timespec t[2] = {s.st_atim, s.st_mtim};
        t[1].tv_sec += 10;
        CHECK(utimensat(AT_FDCWD, src, t, 0) == 0);
    }
    CHECK(cfd_mesh_load(&b, src, dir, &st) == 0);
    CHECK(st == CFD_CACHE_REBUILT && same_mesh(&c, &b));
    cfd_mesh_free(&b);
    CHECK(cfd_mesh_load(&b, src, dir, &st) == 0 && st == CFD_CACHE_HIT && same_mesh(&c, &b));
    cfd_mesh_free(&b);
    /* A corrupt source is an error even with a cache of its earlier self. */
    CHECK(check_write_file(src, "2\n1 2 1 0 0") == 0);
    CHECK_EQ_INT(cfd_mesh_load(&b, src, dir, &st), -1);
    CHECK_MSG(gpm_last_error(), "cached.domn:2: cut short");
    unlink(src);
    CHECK_EQ_INT(cfd_mesh_load(&b, src, dir, &st), -1);
    CHECK_MSG(gpm_last_error(), "cannot open the mesh");
    unlink(cpath);
    cfd_mesh_free(&a);
    cfd_mesh_free(&c);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cfd-mesh-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    mkdir(dir, 0700);
    RUN(generator_is_exact_and_deterministic);
    RUN(generated_faces_are_consistent);
    RUN(reader_reads_rodinia_format);
    RUN(written_mesh_reads_back_identical);
    RUN(reader_names_file_and_line_of_bad_input);
    RUN(cache_parses_once_and_rebuilds);
    remove_all();
    CHECK_EXIT();
}
