/* Hostile fixture forge-stdout: prints a fake 42-cycle timing record on stdout and exits */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "forge-stdout"

#include "kem_api.h"

#endif
