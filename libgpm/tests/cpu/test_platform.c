/* The platform report on this machine: every field filled (saying why where
 * nothing could be read), the PM backend of GPM_PM_DIR as the file system
 * reports it, and TSV header and values that line up. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <linux/magic.h>

#include "gpm/check.h"
#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

static gpm_platform plat;

static int clean(const char *v)
{
    return v[0] != '\0' && !strpbrk(v, "\t\n\r");
}

static void every_field_is_filled_without_tabs(void)
{
    const char *fields[] = {plat.gpu, plat.gpu_cc, plat.gpu_pci, plat.driver, plat.cuda,
                            plat.pcie, plat.pm_dir, plat.pm_backend, plat.persist_domain,
                            plat.ddio, plat.cpu, plat.host, plat.git_rev};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        CHECKF(clean(fields[i]), "field %zu is \"%s\"", i, fields[i]);
    CHECK_EQ_INT(plat.cores, sysconf(_SC_NPROCESSORS_ONLN));
    /* The library's build revision (a test and the library may be built at
     * different commits, so only its form is checked: git describe output). */
    CHECKF(strspn(plat.git_rev, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-") ==
               strlen(plat.git_rev),
           "git_rev \"%s\"", plat.git_rev);
    CHECK(strcmp(plat.ddio, gpm_ddio_status()) == 0);
    CHECK(strcmp(plat.pm_dir, gpm_pm_dir()) == 0);
}

static void gpu_fields_match_cuda(void)
{
    int n = 0, v = 0;
    char want[32];
    cudaRuntimeGetVersion(&v);
    snprintf(want, sizeof want, "%d.%d", v / 1000, (v % 1000) / 10);
    CHECK(strcmp(plat.cuda, want) == 0);
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        CHECKF(strncmp(plat.gpu, "none (no NVIDIA driver or GPU visible (CUDA: ", 45) == 0, "%s",
               plat.gpu);
        CHECK(strcmp(plat.gpu_cc, "none") == 0);
        CHECK(strcmp(plat.gpu_pci, "none") == 0);
        CHECK(strcmp(plat.pcie, "unknown: no GPU") == 0);
        return;
    }
    struct cudaDeviceProp prop;
    int dev = 0, d, b, s, f;
    CHECK(cudaGetDevice(&dev) == cudaSuccess);
    CHECK(cudaGetDeviceProperties(&prop, dev) == cudaSuccess);
    CHECK(strcmp(plat.gpu, prop.name) == 0);
    snprintf(want, sizeof want, "%d.%d", prop.major, prop.minor);
    CHECK(strcmp(plat.gpu_cc, want) == 0);
    CHECK(gpm_ddio_parse_bus_id(plat.gpu_pci, &d, &b, &s, &f) == 0);
    CHECK(strcmp(plat.driver, "none") != 0);
    CHECKF(strncmp(plat.pcie, "gen", 3) == 0 || strncmp(plat.pcie, "unknown: ", 9) == 0, "%s",
           plat.pcie);
}

/* gpm_gpu_check agrees with CUDA, and without a GPU says so in one line
 * whatever CUDA's reason (on a machine with the toolkit but no driver, CUDA
 * says the driver is insufficient). */
static void gpu_check_agrees_with_cuda(void)
{
    int n = 0;
    int visible = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    cudaGetLastError();
    gpm_set_error("before");
    if (visible) {
        CHECK_EQ_INT(gpm_gpu_check(), 0);
        CHECK(strcmp(gpm_last_error(), "before") == 0);
        return;
    }
    CHECK_EQ_INT(gpm_gpu_check(), -1);
    CHECK(strncmp(gpm_last_error(), "no NVIDIA driver or GPU visible (CUDA: ", 39) == 0);
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
}

static void pm_backend_matches_file_system(void)
{
    struct statfs fs;
    DIR *dir;
    struct dirent *e;
    CHECK(statfs(gpm_pm_dir(), &fs) == 0);
    if (plat.pm_is_pmem) {
        CHECK(strcmp(plat.pm_backend, "dax") == 0);
    } else if (fs.f_type == TMPFS_MAGIC) {
        CHECK(strcmp(plat.pm_backend, "tmpfs") == 0);
        CHECK(strcmp(plat.persist_domain, "unknown: emulated PM") == 0);
    } else {
        CHECK(strcmp(plat.pm_backend, "file") == 0);
        CHECK(strcmp(plat.persist_domain, "unknown: not PM") == 0);
    }
    /* The probe file is gone. */
    CHECK((dir = opendir(gpm_pm_dir())) != NULL);
    while ((e = readdir(dir)))
        CHECKF(strncmp(e->d_name, ".gpm-platform-probe", 19) != 0, "left %s", e->d_name);
    closedir(dir);
}

static void unusable_pm_dir_is_explained(void)
{
    gpm_platform p;
    char *old = strdup(getenv("GPM_PM_DIR") ? getenv("GPM_PM_DIR") : "");
    setenv("GPM_PM_DIR", "/nonexistent-gpm-platform-dir", 1);
    gpm_platform_collect(&p);
    if (*old)
        setenv("GPM_PM_DIR", old, 1);
    else
        unsetenv("GPM_PM_DIR");
    free(old);
    CHECK(strcmp(p.pm_backend, "none") == 0);
    CHECK_MSG(p.persist_domain, "cannot create a file in /nonexistent-gpm-platform-dir");
    CHECK(clean(p.pm_dir));
}

/* Reads a whole stream written by F into BUF. */
static size_t capture(void (*f)(const gpm_platform *, FILE *), void (*h)(FILE *), char *buf,
                      size_t len)
{
    FILE *tmp = tmpfile();
    size_t n;
    if (!tmp)
        return 0;
    if (f)
        f(&plat, tmp);
    else
        h(tmp);
    rewind(tmp);
    n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return n;
}

static int count(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static void tsv_header_values_and_print_agree(void)
{
    static char head[4096], vals[4096], print[8192];
    char *save = NULL, *line;
    int i = 0;
    CHECK(capture(NULL, gpm_platform_tsv_header, head, sizeof head) > 0);
    CHECK(capture(gpm_platform_tsv_values, NULL, vals, sizeof vals) > 0);
    CHECK(capture(gpm_platform_print, NULL, print, sizeof print) > 0);
    CHECK(!strchr(head, '\n') && !strchr(vals, '\n'));
    CHECK_EQ_INT(count(head, '\t'), 14);
    CHECK_EQ_INT(count(vals, '\t'), 14);
    CHECK(strncmp(head, "gpu\tgpu_cc\tgpu_pci\t", 19) == 0);
    CHECK(head[strlen(head) - 1] != '\t' && vals[strlen(vals) - 1] != '\t');
    /* print's keys are the header's names, in order, with the same values. */
    char *hs = NULL, *vs = NULL;
    char *h = strtok_r(head, "\t", &hs), *v = strtok_r(vals, "\t", &vs);
    for (line = strtok_r(print, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
        char want[1024];
        CHECK(h && v);
        snprintf(want, sizeof want, "%s\t%s", h, v);
        CHECKF(strcmp(line, want) == 0, "\"%s\" vs \"%s\"", line, want);
        h = strtok_r(NULL, "\t", &hs);
        v = strtok_r(NULL, "\t", &vs);
    }
    CHECK_EQ_INT(i, 15);
}

static void pcie_generations(void)
{
    CHECK_EQ_INT(gpm_platform_pcie_gen("2.5 GT/s PCIe"), 1);
    CHECK_EQ_INT(gpm_platform_pcie_gen("5.0 GT/s PCIe"), 2);
    CHECK_EQ_INT(gpm_platform_pcie_gen("8.0 GT/s PCIe"), 3);
    CHECK_EQ_INT(gpm_platform_pcie_gen("16.0 GT/s PCIe"), 4);
    CHECK_EQ_INT(gpm_platform_pcie_gen("32.0 GT/s PCIe"), 5);
    CHECK_EQ_INT(gpm_platform_pcie_gen("64.0 GT/s PCIe"), 6);
    CHECK_EQ_INT(gpm_platform_pcie_gen("8 GT/s"), 3);
    CHECK_EQ_INT(gpm_platform_pcie_gen("Unknown"), 0);
    CHECK_EQ_INT(gpm_platform_pcie_gen("12.0 GT/s"), 0);
}

int main(void)
{
    gpm_platform_collect(&plat);
    RUN(every_field_is_filled_without_tabs);
    RUN(gpu_fields_match_cuda);
    RUN(gpu_check_agrees_with_cuda);
    RUN(pm_backend_matches_file_system);
    RUN(unusable_pm_dir_is_explained);
    RUN(tsv_header_values_and_print_agree);
    RUN(pcie_generations);
    CHECK_EXIT();
}
