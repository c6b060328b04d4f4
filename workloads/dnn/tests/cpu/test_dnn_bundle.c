/* Where the programs look for Fashion-MNIST by default: the installed copy
 * ($GPM_FASHION_MNIST_DIR, else Debian's), then the copy a bundle carries
 * two folders above the program (bundle/tests/cpu/ here, bundle/bin/ for
 * dnn). Run from a bundle (scripts/tests-cpu/test_bundle_data.sh does, with
 * no installed copy and an empty cache), the bundle's copy is found and
 * reads; run from the build tree, the message names where a bundle keeps
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../dnn.h"
#include "gpm/check.h"

static char cache[4200]; /* an empty dataset cache */

/* share/datasets/fashion-mnist two folders above this program, into OUT. */
static void bundle_dir(char *out, size_t len)
{
    char exe[4096], *s;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    for (int up = 0; up < 3 && (s = strrchr(exe, '/')); up++)
        *s = '\0';
    snprintf(out, len, "%s/share/datasets/fashion-mnist", exe);
}

static void the_installed_copy_is_looked_for_first(void)
{
    const char *env = getenv("GPM_FASHION_MNIST_DIR");
    const char *first = env && *env ? env : DNN_FASHION_DIR;
    char bundle[4200];
    bundle_dir(bundle, sizeof bundle);
    CHECK(strncmp(dnn_fashion_dirs(), first, strlen(first)) == 0 &&
          dnn_fashion_dirs()[strlen(first)] == ':');
    CHECK_MSG(dnn_fashion_dirs(), bundle);
}

/* With no installed copy and an empty cache: the bundle's copy, where this
 * program has one above it; else a message naming where it would be. */
static void the_bundled_copy_is_found_beside_the_program(void)
{
    struct dnn_files f;
    struct stat st;
    char bundle[4200];
    uint32_t ntrain = 0, ntest = 0;
    bundle_dir(bundle, sizeof bundle);
    CHECK(cache[0] != '\0');
    setenv("GPM_DATA_DIR", cache, 1);
    setenv("GPM_FASHION_MNIST_DIR", "/nonexistent/fashion-mnist", 1);
    if (stat(bundle, &st) != 0) {
        /* The build tree: nothing there, and the message says where. */
        CHECK_EQ_INT(dnn_dataset_find("fashion", dnn_fashion_dirs(), &f), -1);
        CHECK_MSG(gpm_last_error(), "Fashion-MNIST is not in /nonexistent/fashion-mnist, ");
        CHECK_MSG(gpm_last_error(), bundle);
        CHECK_MSG(gpm_last_error(), "install the Debian package dataset-fashion-mnist");
    } else {
        CHECKF(dnn_dataset_find("fashion", dnn_fashion_dirs(), &f) == 0, "%s",
               gpm_last_error());
        CHECKF(strncmp(f.path[0], bundle, strlen(bundle)) == 0, "found %s, not in %s",
               f.path[0], bundle);
        CHECKF(dnn_dataset_check(&f, &ntrain, &ntest) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(ntrain, 60000);
        CHECK_EQ_INT(ntest, 10000);
    }
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(cache, sizeof cache, "%s/dnn-bundle-test.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(cache))
        cache[0] = '\0';
    RUN(the_installed_copy_is_looked_for_first);
    RUN(the_bundled_copy_is_found_beside_the_program);
    if (cache[0])
        rmdir(cache);
    CHECK_EXIT();
}
