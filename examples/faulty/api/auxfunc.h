/*
 * NGCC Perf: our own implementation of the ICCS symmetric placeholder
 * interfaces (sm3hash, pseudohash, pseudoXOF).  Written from the public
 * interface description; see docs/harness.md for the constructions.
 */
#ifndef NGCC_ICCS_AUXFUNC_H
#define NGCC_ICCS_AUXFUNC_H

#include <stddef.h>
#include <stdint.h>

/* SM3 (GB/T 32905-2016).  digest_len_bits must be 256.  Returns 0 on success. */
int sm3hash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
            unsigned char *digest);

/* SM3-based wide hash: digest_len_bits in {512, 768, 1024}.  Returns 0 on success. */
int pseudohash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
               unsigned char *digest);

/* SM3-based extendable output: any out_len_bits (last byte keeps its high bits). */
int pseudoXOF(unsigned long long out_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *out);

/*
 * Streaming SM3 used internally (by the DRNG and the constructions above) so
 * that internal hashing is not counted as calls to the public primitives.
 */
typedef struct {
    uint32_t h[8];
    unsigned char buf[64];
    size_t used;             /* bytes in buf */
    unsigned long long bits; /* total message bits absorbed */
} iccs_sm3_ctx;

void iccs_sm3_init(iccs_sm3_ctx *ctx);
void iccs_sm3_update(iccs_sm3_ctx *ctx, const unsigned char *data, size_t len);
/* Absorb `nbits` (0..7) leading bits of `last`, pad, and write 32 bytes. */
void iccs_sm3_final_bits(iccs_sm3_ctx *ctx, unsigned char last, unsigned nbits,
                         unsigned char out[32]);
/* Absorb a bit string (whole bytes then a partial last byte). */
void iccs_sm3_update_bits(iccs_sm3_ctx *ctx, const unsigned char *msg,
                          unsigned long long len_bits, unsigned char *last,
                          unsigned *last_bits);

#endif
