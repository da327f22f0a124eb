/* Faulty fixture segv-dec: segmentation fault in kem_dec */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "segv-dec"

#include "kem_api.h"

#endif
