/* The GPU's PCIe transmit throughput while a run is timed (Figure 12),
 * sampled through NVML where the driver offers it. NVML is opened at run
 * time, so that no program links against the driver's library and the CPU
 * programs run where there is none. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "harness.h"

/* The few NVML declarations used (its stable C ABI; the header is not
 * part of the CUDA toolkit). */
typedef void *nvml_device;
#define NVML_OK 0
#define NVML_PCIE_UTIL_TX_BYTES 0 /* KB/s sent by the GPU, over the last 20 ms */

static struct {
    int state;                    /* 0 not tried, 1 ready, -1 unavailable */
    char why[160];
    nvml_device dev;
    int (*throughput)(nvml_device, int, unsigned int *);
    pthread_t thread;
    volatile int stop;
    double kbps_sum;
    long samples;
} pcie;

static int unavailable(const char *why)
{
    snprintf(pcie.why, sizeof pcie.why, "%s", why);
    pcie.state = -1;
    return -1;
}

static int nvml_open(void)
{
    void *lib;
    int (*init)(void), (*by_bus)(const char *, nvml_device *);
    char bus[32];
    int d;
    unsigned int v;
    if (pcie.state)
        return pcie.state > 0 ? 0 : -1;
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib)
        return unavailable("no libnvidia-ml.so.1 (the NVIDIA driver's NVML)");
    init = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    by_bus = (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    pcie.throughput = (int (*)(nvml_device, int, unsigned int *))dlsym(
        lib, "nvmlDeviceGetPcieThroughput");
    if (!init || !by_bus || !pcie.throughput)
        return unavailable("NVML lacks the PCIe throughput call");
    if (cudaGetDevice(&d) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, sizeof bus, d) != cudaSuccess || init() != NVML_OK ||
        by_bus(bus, &pcie.dev) != NVML_OK)
        return unavailable("NVML cannot open the GPU");
    if (pcie.throughput(pcie.dev, NVML_PCIE_UTIL_TX_BYTES, &v) != NVML_OK)
        return unavailable("the driver does not report PCIe throughput");
    pcie.state = 1;
    return 0;
}

static void *sampler(void *arg)
{
    struct timespec gap = {0, 20 * 1000 * 1000};
    (void)arg;
    while (!pcie.stop) {
        unsigned int v;
        if (pcie.throughput(pcie.dev, NVML_PCIE_UTIL_TX_BYTES, &v) == NVML_OK) {
            pcie.kbps_sum += v;
            pcie.samples++;
        }
        nanosleep(&gap, NULL);
    }
    return NULL;
}

int wl_pcie_start(struct wl_ctx *c)
{
    if (!c->m->needs_gpu || nvml_open() != 0)
        return 0;
    pcie.stop = 0;
    pcie.kbps_sum = 0;
    pcie.samples = 0;
    if (pthread_create(&pcie.thread, NULL, sampler, NULL) != 0)
        return unavailable("cannot start the sampling thread"), 0;
    return 1;
}

void wl_pcie_stop(struct wl_ctx *c, int started)
{
    if (!c->m->needs_gpu)
        return;
    if (started) {
        pcie.stop = 1;
        pthread_join(pcie.thread, NULL);
    }
    if (started && pcie.samples > 0)
        wl_note(c, "pcie_tx_gbps=%.4g", pcie.kbps_sum / (double)pcie.samples * 1024.0 / 1e9);
    else
        wl_note(c, "pcie_tx=unavailable");
}

const char *wl_pcie_why(void) { return pcie.state < 0 ? pcie.why : ""; }
