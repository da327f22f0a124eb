/* Hostile fixture huge-timeout: asks for a 1e12 s KAT timeout and never returns */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "huge-timeout"

#include "kem_api.h"

#endif
