/* Faulty fixture malloc-10g: 10 GB unchecked malloc in kem_keygen (fails under the address-space limit) */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "malloc-10g"

#include "kem_api.h"

#endif
