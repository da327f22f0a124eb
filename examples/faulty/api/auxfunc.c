/*
 * NGCC Perf ICCS implementation: SM3 and two constructions built on it.
 *
 * sm3hash    : SM3 as specified in GB/T 32905-2016, on bit strings
 *              (message bits are taken most-significant-bit first).
 * pseudohash : d in {512,768,1024}.  k = SM3("NGCC-PH" || be16(d) || msg);
 *              block_i = SM3("NGCC-PH-OUT" || k || be16(i)), i = 0..d/256-1;
 *              digest = block_0 || block_1 || ...
 * pseudoXOF  : k = SM3("NGCC-XOF" || msg);
 *              out = SM3("NGCC-XOF-OUT" || k || be64(0)) || ... truncated to
 *              out_len_bits (unused low bits of a final partial byte are 0).
 *              Outputs of different lengths are prefixes of each other.
 * These are our own constructions, not the official placeholder bodies.
 */
#include "auxfunc.h"

#include <string.h>

#define ROTL(x, n) (((x) << ((n) & 31)) | ((x) >> ((32 - ((n) & 31)) & 31)))
#define P0(x) ((x) ^ ROTL((x), 9) ^ ROTL((x), 17))
#define P1(x) ((x) ^ ROTL((x), 15) ^ ROTL((x), 23))

static const uint32_t sm3_iv[8] = {0x7380166f, 0x4914b2b9, 0x172442d7, 0xda8a0600,
                                   0xa96f30bc, 0x163138aa, 0xe38dee4d, 0xb0fb0e4e};

static uint32_t load_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void sm3_compress(uint32_t h[8], const unsigned char block[64])
{
    uint32_t w[68], w1[64];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    int j;

    for (j = 0; j < 16; j++)
        w[j] = load_be32(block + 4 * j);
    for (j = 16; j < 68; j++)
        w[j] = P1(w[j - 16] ^ w[j - 9] ^ ROTL(w[j - 3], 15)) ^ ROTL(w[j - 13], 7) ^ w[j - 6];
    for (j = 0; j < 64; j++)
        w1[j] = w[j] ^ w[j + 4];
    for (j = 0; j < 64; j++) {
        uint32_t t = j < 16 ? 0x79cc4519u : 0x7a879d8au;
        uint32_t ss1 = ROTL(ROTL(a, 12) + e + ROTL(t, (uint32_t)j), 7);
        uint32_t ss2 = ss1 ^ ROTL(a, 12);
        uint32_t ff = j < 16 ? (a ^ b ^ c) : ((a & b) | (a & c) | (b & c));
        uint32_t gg = j < 16 ? (e ^ f ^ g) : ((e & f) | (~e & g));
        uint32_t tt1 = ff + d + ss2 + w1[j];
        uint32_t tt2 = gg + hh + ss1 + w[j];
        d = c;
        c = ROTL(b, 9);
        b = a;
        a = tt1;
        hh = g;
        g = ROTL(f, 19);
        f = e;
        e = P0(tt2);
    }
    h[0] ^= a; h[1] ^= b; h[2] ^= c; h[3] ^= d;
    h[4] ^= e; h[5] ^= f; h[6] ^= g; h[7] ^= hh;
}

void iccs_sm3_init(iccs_sm3_ctx *ctx)
{
    memcpy(ctx->h, sm3_iv, sizeof ctx->h);
    ctx->used = 0;
    ctx->bits = 0;
}

void iccs_sm3_update(iccs_sm3_ctx *ctx, const unsigned char *data, size_t len)
{
    ctx->bits += (unsigned long long)len * 8u;
    while (len > 0) {
        size_t take = 64 - ctx->used;
        if (take > len)
            take = len;
        memcpy(ctx->buf + ctx->used, data, take);
        ctx->used += take;
        data += take;
        len -= take;
        if (ctx->used == 64) {
            sm3_compress(ctx->h, ctx->buf);
            ctx->used = 0;
        }
    }
}

void iccs_sm3_update_bits(iccs_sm3_ctx *ctx, const unsigned char *msg,
                          unsigned long long len_bits, unsigned char *last,
                          unsigned *last_bits)
{
    size_t whole = (size_t)(len_bits / 8);
    *last_bits = (unsigned)(len_bits % 8);
    iccs_sm3_update(ctx, msg, whole);
    *last = *last_bits ? msg[whole] : 0;
}

void iccs_sm3_final_bits(iccs_sm3_ctx *ctx, unsigned char last, unsigned nbits,
                         unsigned char out[32])
{
    unsigned long long total = ctx->bits + nbits;
    unsigned char mask = (unsigned char)(0xff00u >> nbits);
    int i;

    /* the partial byte keeps its nbits high bits, followed by the '1' bit */
    ctx->buf[ctx->used++] = (unsigned char)((last & mask) | (0x80u >> nbits));
    if (ctx->used > 56) {
        memset(ctx->buf + ctx->used, 0, 64 - ctx->used);
        sm3_compress(ctx->h, ctx->buf);
        ctx->used = 0;
    }
    memset(ctx->buf + ctx->used, 0, 56 - ctx->used);
    for (i = 0; i < 8; i++)
        ctx->buf[56 + i] = (unsigned char)(total >> (56 - 8 * i));
    sm3_compress(ctx->h, ctx->buf);
    for (i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}

int sm3hash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
            unsigned char *digest)
{
    iccs_sm3_ctx ctx;
    unsigned char last;
    unsigned nbits;

    if (digest_len_bits != 256 || digest == NULL || (msg == NULL && msg_len_bits != 0))
        return -1;
    iccs_sm3_init(&ctx);
    iccs_sm3_update_bits(&ctx, msg, msg_len_bits, &last, &nbits);
    iccs_sm3_final_bits(&ctx, last, nbits, digest);
    return 0;
}

/* k = SM3(tag || prefix || msg) for a bit-string msg. */
static void keyed_digest(const char *tag, const unsigned char *prefix, size_t prefix_len,
                         const unsigned char *msg, unsigned long long msg_len_bits,
                         unsigned char k[32])
{
    iccs_sm3_ctx ctx;
    unsigned char last;
    unsigned nbits;

    iccs_sm3_init(&ctx);
    iccs_sm3_update(&ctx, (const unsigned char *)tag, strlen(tag));
    iccs_sm3_update(&ctx, prefix, prefix_len);
    iccs_sm3_update_bits(&ctx, msg, msg_len_bits, &last, &nbits);
    iccs_sm3_final_bits(&ctx, last, nbits, k);
}

/* out block = SM3(tag || k || counter) */
static void expand_block(const char *tag, const unsigned char k[32], const unsigned char *ctr,
                         size_t ctr_len, unsigned char out[32])
{
    iccs_sm3_ctx ctx;

    iccs_sm3_init(&ctx);
    iccs_sm3_update(&ctx, (const unsigned char *)tag, strlen(tag));
    iccs_sm3_update(&ctx, k, 32);
    iccs_sm3_update(&ctx, ctr, ctr_len);
    iccs_sm3_final_bits(&ctx, 0, 0, out);
}

int pseudohash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
               unsigned char *digest)
{
    unsigned char k[32], d[2], ctr[2];
    int i;

    if ((digest_len_bits != 512 && digest_len_bits != 768 && digest_len_bits != 1024) ||
        digest == NULL || (msg == NULL && msg_len_bits != 0))
        return -1;
    d[0] = (unsigned char)(digest_len_bits >> 8);
    d[1] = (unsigned char)digest_len_bits;
    keyed_digest("NGCC-PH", d, sizeof d, msg, msg_len_bits, k);
    for (i = 0; i < digest_len_bits / 256; i++) {
        ctr[0] = (unsigned char)(i >> 8);
        ctr[1] = (unsigned char)i;
        expand_block("NGCC-PH-OUT", k, ctr, sizeof ctr, digest + 32 * i);
    }
    return 0;
}

int pseudoXOF(unsigned long long out_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *out)
{
    unsigned char k[32], block[32], ctr[8];
    unsigned long long out_bytes = (out_len_bits + 7) / 8, i, pos = 0;
    int j;

    if ((out == NULL && out_len_bits != 0) || (msg == NULL && msg_len_bits != 0))
        return -1;
    keyed_digest("NGCC-XOF", NULL, 0, msg, msg_len_bits, k);
    for (i = 0; pos < out_bytes; i++) {
        size_t take = out_bytes - pos < 32 ? (size_t)(out_bytes - pos) : 32;
        for (j = 0; j < 8; j++)
            ctr[j] = (unsigned char)(i >> (56 - 8 * j));
        expand_block("NGCC-XOF-OUT", k, ctr, sizeof ctr, block);
        memcpy(out + pos, block, take);
        pos += take;
    }
    if (out_len_bits % 8)
        out[out_bytes - 1] &= (unsigned char)(0xff00u >> (out_len_bits % 8));
    return 0;
}
