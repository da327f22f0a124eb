/* Hostile fixture incbin-outside: embeds a file from outside its tree at build time */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "incbin-outside"

#include "kem_api.h"

#endif
