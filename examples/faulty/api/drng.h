/*
 * NGCC Perf: our implementation of the ICCS DRNG interface.
 * The context layout is fixed by the official interface (3 x 55 bytes).
 */
#ifndef NGCC_ICCS_DRNG_H
#define NGCC_ICCS_DRNG_H

typedef struct {
    unsigned char V[55];
    unsigned char C[55];
    unsigned char reseed_counter[55];
} DRNG_ctx;

/* Instantiate from seed (any length).  Returns 0 on success. */
int init_random_number(DRNG_ctx *ctx, const unsigned char *seed,
                       unsigned long long seed_len_bytes);

/* Write len_bits pseudo-random bits (high bits of a final partial byte). */
int get_random_number(DRNG_ctx *ctx, unsigned char *out, unsigned long long len_bits);

#endif
