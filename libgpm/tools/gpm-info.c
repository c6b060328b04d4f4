/* gpm-info: prints the platform report that every result row carries, as
 * "key<TAB>value" lines after a "key<TAB>value" header. Works without a GPU.
 * Exit status: 0 done, 1 error (or no GPU for --check-gpu), 2 usage. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpm/args.h"
#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

#define PROG "gpm-info"

static const char usage_text[] =
    "usage: gpm-info                 the platform report (key<TAB>value lines)\n"
    "       gpm-info --check-gpu     exit 0 silently when a CUDA GPU is visible, else say\n"
    "                                why on one stderr line and exit 1\n"
    "       gpm-info --ddio-port [--dump LSPCI_XXXX_FILE] [--gpu BUS_ID]\n"
    "                                the root port above the GPU and whether libgpm could\n"
    "                                control its DDIO (reads only; --dump: an `lspci -xxxx`\n"
    "                                dump instead of this system, --gpu: the GPU's bus id)\n"
    "       gpm-info --help\n";

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
    enum { OPT_DUMP = 256, OPT_GPU };
    const char *dump = NULL, *gpu = NULL;
    int ddio_port = 0, check_gpu = 0, c;
    /* --ddio-port and --check-gpu set their flags (getopt_long returns 0). */
    const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                  {"ddio-port", no_argument, &ddio_port, 1},
                                  {"dump", required_argument, NULL, OPT_DUMP},
                                  {"gpu", required_argument, NULL, OPT_GPU},
                                  {"check-gpu", no_argument, &check_gpu, 1},
                                  {0, 0, 0, 0}};
    gpm_platform p;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case 0:
            break;
        case OPT_DUMP:
            dump = optarg;
            break;
        case OPT_GPU:
            gpu = optarg;
            break;
        default:
            gpm_args_bad_flag(PROG, c, argv);
            return gpm_args_fail(PROG);
        }
    }
    if (gpm_args_no_positional(PROG, argc, argv) != 0)
        return gpm_args_fail(PROG);
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
