/*
 * NGCC Perf DRNG: SP 800-90A Hash_DRBG instantiated with SM3
 * (outlen 256 bits, seedlen 440 bits = 55 bytes), no prediction resistance,
 * no nonce or personalisation string: the whole seed is the entropy input.
 * V, C and reseed_counter are stored big-endian in 55-byte fields.
 * Our own implementation; not claimed to match the official placeholder.
 */
#include "drng.h"

#include <string.h>

#include "auxfunc.h"

#define SEEDLEN 55

/* Hash_df(prefix || input, 440 bits) */
static void hash_df(unsigned char out[SEEDLEN], const unsigned char *prefix, size_t prefix_len,
                    const unsigned char *input, size_t input_len)
{
    unsigned char head[5], block[32];
    size_t pos = 0;
    unsigned counter = 1;

    head[1] = 0;
    head[2] = 0;
    head[3] = (unsigned char)((SEEDLEN * 8) >> 8);
    head[4] = (unsigned char)(SEEDLEN * 8);
    while (pos < SEEDLEN) {
        iccs_sm3_ctx ctx;
        size_t take = SEEDLEN - pos < 32 ? SEEDLEN - pos : 32;
        head[0] = (unsigned char)counter++;
        iccs_sm3_init(&ctx);
        iccs_sm3_update(&ctx, head, sizeof head);
        if (prefix_len)
            iccs_sm3_update(&ctx, prefix, prefix_len);
        if (input_len)
            iccs_sm3_update(&ctx, input, input_len);
        iccs_sm3_final_bits(&ctx, 0, 0, block);
        memcpy(out + pos, block, take);
        pos += take;
    }
}

/* acc = (acc + addend) mod 2^440, addend right-aligned with addend_len bytes */
static void add_be(unsigned char acc[SEEDLEN], const unsigned char *addend, size_t addend_len)
{
    unsigned carry = 0;
    size_t i;

    for (i = 0; i < SEEDLEN; i++) {
        unsigned sum = acc[SEEDLEN - 1 - i] + carry;
        if (i < addend_len)
            sum += addend[addend_len - 1 - i];
        acc[SEEDLEN - 1 - i] = (unsigned char)sum;
        carry = sum >> 8;
    }
}

int init_random_number(DRNG_ctx *ctx, const unsigned char *seed,
                       unsigned long long seed_len_bytes)
{
    static const unsigned char zero = 0;

    if (ctx == NULL || (seed == NULL && seed_len_bytes != 0))
        return -1;
    hash_df(ctx->V, NULL, 0, seed, (size_t)seed_len_bytes);
    hash_df(ctx->C, &zero, 1, ctx->V, SEEDLEN);
    memset(ctx->reseed_counter, 0, SEEDLEN);
    ctx->reseed_counter[SEEDLEN - 1] = 1;
    return 0;
}

int get_random_number(DRNG_ctx *ctx, unsigned char *out, unsigned long long len_bits)
{
    static const unsigned char one = 1, three = 3;
    unsigned char data[SEEDLEN], block[32];
    unsigned long long out_bytes = (len_bits + 7) / 8, pos = 0;
    iccs_sm3_ctx h;

    if (ctx == NULL || (out == NULL && len_bits != 0))
        return -1;
    /* Hashgen: W = Hash(data) || Hash(data + 1) || ... */
    memcpy(data, ctx->V, SEEDLEN);
    while (pos < out_bytes) {
        size_t take = out_bytes - pos < 32 ? (size_t)(out_bytes - pos) : 32;
        iccs_sm3_init(&h);
        iccs_sm3_update(&h, data, SEEDLEN);
        iccs_sm3_final_bits(&h, 0, 0, block);
        memcpy(out + pos, block, take);
        pos += take;
        add_be(data, &one, 1);
    }
    if (len_bits % 8)
        out[out_bytes - 1] &= (unsigned char)(0xff00u >> (len_bits % 8));
    /* V = V + Hash(0x03 || V) + C + reseed_counter */
    iccs_sm3_init(&h);
    iccs_sm3_update(&h, &three, 1);
    iccs_sm3_update(&h, ctx->V, SEEDLEN);
    iccs_sm3_final_bits(&h, 0, 0, block);
    add_be(ctx->V, block, sizeof block);
    add_be(ctx->V, ctx->C, SEEDLEN);
    add_be(ctx->V, ctx->reseed_counter, SEEDLEN);
    add_be(ctx->reseed_counter, &one, 1);
    return 0;
}
