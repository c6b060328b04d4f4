/* gpm-info: prints the platform report that every result row carries, as
 * "key<TAB>value" lines after a "key<TAB>value" header. Works without a GPU.
 *
 *   gpm-info                      the report
 *   gpm-info --ddio-port [--dump FILE] [--gpu BUS_ID]
 *                                 the root port above the GPU and whether
 *                                 libgpm could control its DDIO (reads only) */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

static int usage(void)
{
    fprintf(stderr, "usage: gpm-info [--ddio-port [--dump LSPCI_XXXX_FILE] [--gpu BUS_ID]]\n");
    return 2;
}

static int print_port(const char *dump, const char *gpu)
{
    char bus[32];
    int dev;
    gpm_ddio_port port;
    if (!gpu) {
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) {
            fprintf(stderr, "gpm-info: no CUDA device: pass --gpu BUS_ID\n");
            return 1;
        }
        gpu = bus;
    }
    if (gpm_ddio_find_port(gpu, dump, &port) != 0) {
        fprintf(stderr, "gpm-info: %s\n", gpm_last_error());
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
    int ddio_port = 0;
    gpm_platform p;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ddio-port") == 0)
            ddio_port = 1;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump = argv[++i];
        else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
            gpu = argv[++i];
        else
            return usage();
    }
    if (ddio_port)
        return print_port(dump, gpu);
    if (dump || gpu)
        return usage();
    gpm_platform_collect(&p);
    printf("key\tvalue\n");
    gpm_platform_print(&p, stdout);
    return 0;
}
