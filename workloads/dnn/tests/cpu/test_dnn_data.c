/* --dataset on the CPU: where fashion, mnist and a directory are looked
 * for, the one-line errors when they are missing (naming the package or
 * the fetch command), the header checks, the labels, the fingerprint, the
 * flags layout() refuses, and Debian's Fashion-MNIST where it is installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpm/check.h"
#include "idx_files.h"
#include "tests/wl_test.h"

static char sysdir[4200], data[4200], errf[4200];

static const char *sub(const char *name)
{
    static char p[8400];
    snprintf(p, sizeof p, "%s/%s", test_dir, name);
    mkdir(p, 0700);
    return p;
}

static void fashion_missing_names_package_and_fetch(void)
{
    struct dnn_files f;
    CHECK_EQ_INT(dnn_dataset_find("fashion", "/nonexistent/fashion-mnist", &f), -1);
    CHECK_MSG(gpm_last_error(), "--dataset fashion: Fashion-MNIST is not in "
                                "/nonexistent/fashion-mnist nor in ");
    CHECK_MSG(gpm_last_error(), data);
    CHECK_MSG(gpm_last_error(), "install the Debian package dataset-fashion-mnist");
    CHECK_MSG(gpm_last_error(), "datasets/fetch.sh fashion-mnist-$f");
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
}

static void fashion_is_found_installed_or_fetched(void)
{
    struct dnn_files f;
    CHECK(put_toy_dataset(sysdir, "", 20, 10, 1) == 0);
    CHECKF(dnn_dataset_find("fashion", sysdir, &f) == 0, "%s", gpm_last_error());
    CHECK(f.kind == DNN_DATA_FASHION && strcmp(f.name, "fashion") == 0);
    CHECK_MSG(f.path[DNN_TEST_LABELS], "t10k-labels-idx1-ubyte.gz");
    CHECK(strncmp(f.path[0], sysdir, strlen(sysdir)) == 0);
    /* Not installed, but fetched into the cache. */
    CHECK(put_toy_dataset(data, "fashion-mnist-", 20, 10, 0) == 0);
    CHECKF(dnn_dataset_find("fashion", "/nonexistent", &f) == 0, "%s", gpm_last_error());
    CHECK_MSG(f.path[DNN_TRAIN_IMAGES], "/fashion-mnist-train-images-idx3-ubyte");
    CHECK(strncmp(f.path[0], data, strlen(data)) == 0);
}

static void mnist_missing_names_fetch_then_is_found(void)
{
    struct dnn_files f;
    char p[8400];
    CHECK_EQ_INT(dnn_dataset_find("mnist", sysdir, &f), -1);
    CHECK_MSG(gpm_last_error(), "--dataset mnist: ");
    CHECK_MSG(gpm_last_error(), "/mnist-train-images-idx3-ubyte.gz not found");
    CHECK_MSG(gpm_last_error(), "datasets/fetch.sh mnist-$f");
    CHECK(put_toy_dataset(data, "mnist-", 20, 10, 1) == 0);
    snprintf(p, sizeof p, "%s/mnist-t10k-images-idx3-ubyte.gz", data);
    CHECK(remove(p) == 0);
    CHECK_EQ_INT(dnn_dataset_find("mnist", sysdir, &f), -1);
    CHECK_MSG(gpm_last_error(), "/mnist-t10k-images-idx3-ubyte.gz not found");
    CHECK(put_toy_dataset(data, "mnist-", 20, 10, 1) == 0);
    CHECKF(dnn_dataset_find("mnist", sysdir, &f) == 0, "%s", gpm_last_error());
    CHECK(f.kind == DNN_DATA_MNIST && strcmp(f.name, "mnist") == 0);
}

static void directory_needs_all_four_files(void)
{
    struct dnn_files f;
    const char *d = sub("dir");
    char p[8400];
    CHECK_EQ_INT(dnn_dataset_find("/nonexistent/dir", sysdir, &f), -1);
    CHECK_MSG(gpm_last_error(), "--dataset /nonexistent/dir: not fashion, mnist nor a directory");
    CHECK(put_toy_dataset(d, "", 20, 10, 0) == 0);
    snprintf(p, sizeof p, "%s/train-labels-idx1-ubyte", d);
    CHECK(remove(p) == 0);
    CHECK_EQ_INT(dnn_dataset_find(d, sysdir, &f), -1);
    CHECK_MSG(gpm_last_error(), "/train-labels-idx1-ubyte(.gz) not found");
    CHECK(put_toy_dataset(d, "", 20, 10, 0) == 0);
    CHECKF(dnn_dataset_find(d, sysdir, &f) == 0, "%s", gpm_last_error());
    CHECK(f.kind == DNN_DATA_DIR);
}

static void headers_labels_and_fingerprint_are_checked(void)
{
    struct dnn_files f;
    struct dnn_data dd;
    uint32_t ntrain = 0, ntest = 0;
    uint64_t fp;
    uint8_t img[3 * 32 * 32] = {0}, lab[3] = {1, 12, 3};
    const char *d = sub("bad");
    char p[8400];
    CHECK(put_toy_dataset(d, "", 30, 20, 1) == 0);
    CHECK(dnn_dataset_find(d, sysdir, &f) == 0);
    CHECKF(dnn_dataset_check(&f, &ntrain, &ntest) == 0, "%s", gpm_last_error());
    CHECK(ntrain == 30 && ntest == 20);
    CHECKF(dnn_dataset_load(&f, &dd) == 0, "%s", gpm_last_error());
    CHECK(dd.ntrain == 30 && dd.ntest == 20 && dd.part[DNN_TRAIN_LABELS].data[13] == 3);
    fp = dd.fingerprint;
    dnn_dataset_free(&dd);
    CHECK(dnn_dataset_load(&f, &dd) == 0 && dd.fingerprint == fp);
    dnn_dataset_free(&dd);
    /* One pixel changed: another fingerprint. */
    {
        uint8_t one[20 * DNN_PIXELS], l20[20];
        for (uint32_t i = 0; i < 20; i++)
            toy_item(2, i, one + (size_t)i * DNN_PIXELS, l20 + i);
        one[777] ^= 1;
        snprintf(p, sizeof p, "%s/t10k-images-idx3-ubyte.gz", d);
        CHECK(put_idx(p, DNN_IDX_IMAGES, 20, DNN_IMG, DNN_IMG, one, 1) == 0);
        CHECK(dnn_dataset_load(&f, &dd) == 0 && dd.fingerprint != fp);
        dnn_dataset_free(&dd);
    }
    /* Fewer labels than images. */
    snprintf(p, sizeof p, "%s/train-labels-idx1-ubyte.gz", d);
    CHECK(put_idx(p, DNN_IDX_LABELS, 3, 0, 0, lab, 1) == 0);
    CHECK_EQ_INT(dnn_dataset_check(&f, &ntrain, &ntest), -1);
    CHECK_MSG(gpm_last_error(), "3 labels for the 30 images of");
    /* A label that is no class. */
    CHECK(put_toy_dataset(d, "", 3, 20, 1) == 0);
    CHECK(put_idx(p, DNN_IDX_LABELS, 3, 0, 0, lab, 1) == 0);
    CHECK_EQ_INT(dnn_dataset_load(&f, &dd), -1);
    CHECK_MSG(gpm_last_error(), "label 12 of item 1 is not a class 0-9");
    /* Images of another size. */
    snprintf(p, sizeof p, "%s/train-images-idx3-ubyte.gz", d);
    CHECK(put_idx(p, DNN_IDX_IMAGES, 3, 32, 32, img, 1) == 0);
    CHECK_EQ_INT(dnn_dataset_check(&f, &ntrain, &ntest), -1);
    CHECK_MSG(gpm_last_error(), "images of 32 x 32 pixels: LeNet takes 28 x 28");
}

/* The flags layout() refuses (exit 2, before any GPU is looked for). */
static void layout_refuses_missing_dataset_and_big_batch(void)
{
    static const struct {
        const char *flag, *val, *msg;
    } bad[] = {
        {"--dataset", "/nonexistent/dir", "--dataset /nonexistent/dir: not fashion"},
        {"--dataset", "mnist", "datasets/fetch.sh mnist-"},
        {"--batch", "31", "--batch: 31 images per batch, but dir has 30 training images"},
    };
    char d[8400];
    snprintf(d, sizeof d, "%s", sub("layout"));
    CHECK(put_toy_dataset(d, "", 30, 10, 0) == 0);
    setenv("GPM_DATA_DIR", sub("empty"), 1); /* no MNIST fetched */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = {"dnn", "--mode", "gpm", "--dataset", (char *)d, (char *)bad[i].flag,
                        (char *)bad[i].val};
        char msg[2048];
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, 7, errf), 2);
        wl_test_line(errf, 0, msg, sizeof msg);
        CHECK_MSG(msg, bad[i].msg);
    }
    setenv("GPM_DATA_DIR", data, 1);
}

static void debian_fashion_mnist_reads_when_installed(void)
{
    struct dnn_files f;
    uint32_t ntrain, ntest;
    if (dnn_dataset_find("fashion", DNN_FASHION_DIR, &f) != 0 ||
        strncmp(f.path[0], DNN_FASHION_DIR, strlen(DNN_FASHION_DIR)) != 0)
        SKIP("dataset-fashion-mnist is not installed");
    CHECKF(dnn_dataset_check(&f, &ntrain, &ntest) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(ntrain, 60000);
    CHECK_EQ_INT(ntest, 10000);
}

int main(void)
{
    if (test_dir_make("dnn-data") != 0) {
        printf("not ok - setup: cannot make a scratch directory\n");
        return 1;
    }
    snprintf(sysdir, sizeof sysdir, "%s", sub("usr-share-datasets-fashion-mnist"));
    snprintf(data, sizeof data, "%s", sub("data"));
    snprintf(errf, sizeof errf, "%s/stderr", test_dir);
    setenv("GPM_DATA_DIR", data, 1);
    RUN(fashion_missing_names_package_and_fetch);
    RUN(fashion_is_found_installed_or_fetched);
    RUN(mnist_missing_names_fetch_then_is_found);
    RUN(directory_needs_all_four_files);
    RUN(headers_labels_and_fingerprint_are_checked);
    RUN(layout_refuses_missing_dataset_and_big_batch);
    RUN(debian_fashion_mnist_reads_when_installed);
    test_dir_remove();
    CHECK_EXIT();
}
