/* Faulty fixture non-compiling: a source file with a syntax error */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "non-compiling"

#include "kem_api.h"

#endif
