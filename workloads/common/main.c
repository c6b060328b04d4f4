/* main() of every workload binary; in its own object so that test programs,
 * which bring their own main(), link the harness without it. */
#include "harness.h"

int main(int argc, char **argv)
{
    return wl_main(&WORKLOAD, argc, argv);
}
