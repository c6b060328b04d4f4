/* gpm-info: prints the platform report that every result row carries, as
 * "key<TAB>value" lines after a "key<TAB>value" header. Works without a GPU.
 * Exit status: 0 done, 1 error (or no GPU for --check-gpu), 2 usage. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpm/args.h"
#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

#define PROG "gpm-info"

static int print_port(const char *dump, const char *gpu)
{
    char bus[32];
    int dev;
    gpm_ddio_port port;
    if (!gpu) {
        if (gpm_gpu_check() != 0) {
            fprintf(stderr, PROG ": %s: pass --gpu BUS_ID\n", gpm_last_error());
            return 1;
        }
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) {
            fprintf(stderr, PROG ": the CUDA device has no PCI bus id: pass --gpu BUS_ID\n");
            return 1;
        }
        gpu = bus;
    }
    if (gpm_ddio_find_port(gpu, dump, &port) != 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    printf("key\tvalue\n");
    printf("gpu_pci\t%s\n", gpu);
    if (port.found)
        printf("port\t%04x:%02x:%02x.%x\nport_id\t%04x:%04x\n", (unsigned)port.domain,
               (unsigned)port.bus, (unsigned)port.dev, (unsigned)port.func, port.vendor_id,
               port.device_id);
    else
        printf("port\tnone\nport_id\tnone\n");
    printf("controllable\t%s\nwhy\t%s\n", port.controllable ? "yes" : "no", port.why);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dump = NULL, *gpu = NULL;
    int ddio_port = 0, check_gpu = 0, rc;
    struct gpm_flag flags[] = {
        GPM_FLAG_SET("--check-gpu", &check_gpu,
                     "exit 0 silently when a CUDA GPU is visible, else say why on one stderr "
                     "line and exit 1"),
        GPM_FLAG_SET("--ddio-port", &ddio_port,
                     "the root port above the GPU and whether libgpm could control its DDIO "
                     "(reads only)"),
        GPM_FLAG_STR("--dump", &dump, NULL, "FILE",
                     "with --ddio-port: an `lspci -xxxx` dump instead of this system"),
        GPM_FLAG_STR("--gpu", &gpu, NULL, "BUS_ID", "with --ddio-port: the GPU's bus id"),
        GPM_FLAGS_END};
    gpm_platform p;

    if ((rc = gpm_args_parse(PROG, "[--check-gpu | --ddio-port [--dump FILE] [--gpu BUS_ID]]\n"
                             "Without a flag: the platform report (key<TAB>value lines).",
                             flags, argc, argv)) != 0)
        return rc > 0 ? 0 : gpm_args_fail(PROG);
    if ((dump || gpu) && !ddio_port) {
        gpm_set_error("%s: only goes with --ddio-port: add it, or drop %s", dump ? "--dump" : "--gpu",
                      dump ? "--dump" : "--gpu");
        return gpm_args_fail(PROG);
    }
    if (check_gpu && ddio_port) {
        gpm_set_error("--check-gpu: takes no other flag: run --ddio-port separately");
        return gpm_args_fail(PROG);
    }
    if (check_gpu) {
        if (gpm_gpu_check() == 0)
            return 0;
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    if (ddio_port)
        return print_port(dump, gpu);
    gpm_platform_collect(&p);
    printf("key\tvalue\n");
    gpm_platform_print(&p, stdout);
    return 0;
}
