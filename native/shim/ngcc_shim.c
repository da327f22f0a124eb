/*
 * NGCC Perf harness shim (see ngcc_shim.h).
 *
 * The DRNG context is declared here with the official layout instead of
 * including the submission's drng.h, so the shim compiles the same way for
 * every submission whatever its headers look like.  Only the symbol name and
 * the 165-byte layout matter to the candidate code.
 */
#include "ngcc_shim.h"

#ifndef NGCC_CANDIDATE
#define NGCC_CANDIDATE "unknown"
#endif
#ifndef NGCC_INSTANCE
#define NGCC_INSTANCE "unknown"
#endif
#ifndef NGCC_CATEGORY
#define NGCC_CATEGORY "unknown"
#endif
#ifndef NGCC_FLAGS
#define NGCC_FLAGS "unknown"
#endif

typedef struct {
    unsigned char V[55];
    unsigned char C[55];
    unsigned char reseed_counter[55];
} ngcc_drng_ctx;

/*
 * The global every candidate draws its randomness from.  Weak, so that a
 * submission whose own sources define drng_algorithm still links (its strong
 * definition wins and ngcc_seed seeds that one).
 */
__attribute__((weak)) ngcc_drng_ctx drng_algorithm;

int init_random_number(ngcc_drng_ctx *ctx, const unsigned char *seed,
                       unsigned long long seed_len_bytes);

int ngcc_seed(const unsigned char *seed, unsigned long long len)
{
    return init_random_number(&drng_algorithm, seed, len);
}

const char *ngcc_candidate(void) { return NGCC_CANDIDATE; }
const char *ngcc_instance(void) { return NGCC_INSTANCE; }
const char *ngcc_category(void) { return NGCC_CATEGORY; }
const char *ngcc_flags(void) { return NGCC_FLAGS; }
int ngcc_shim_abi(void) { return NGCC_SHIM_ABI; }
