/* Faulty fixture kat-mismatch: shared secret differs from the reference KAT */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "kat-mismatch"

#include "kem_api.h"

#endif
