/* Polynomial arithmetic for the example Ring-LWE KEM (schoolbook, small N). */
#include <string.h>

#include "auxfunc.h"
#include "rlwe.h"

static int16_t reduce(int32_t x)
{
    x %= RLWE_Q;
    return (int16_t)(x < 0 ? x + RLWE_Q : x);
}

/* Rejection-sample 12-bit values below q from the XOF stream of seed. */
void poly_uniform(poly *a, const unsigned char seed[RLWE_SYM])
{
    unsigned char buf[6 * RLWE_N];
    unsigned long long len = 3 * RLWE_N;
    size_t i, n;

    for (;;) {
        pseudoXOF(8 * len, seed, 8 * RLWE_SYM, buf);
        for (i = 0, n = 0; i + 3 <= len && n < RLWE_N; i += 3) {
            unsigned v0 = buf[i] | ((unsigned)(buf[i + 1] & 0x0f) << 8);
            unsigned v1 = (buf[i + 1] >> 4) | ((unsigned)buf[i + 2] << 4);
            if (v0 < RLWE_Q)
                a->c[n++] = (int16_t)v0;
            if (v1 < RLWE_Q && n < RLWE_N)
                a->c[n++] = (int16_t)v1;
        }
        if (n == RLWE_N || len == sizeof buf)
            break;
        len = sizeof buf; /* prefix-consistent XOF: just read further */
    }
    for (; n < RLWE_N; n++) /* unreachable in practice (probability < 2^-400) */
        a->c[n] = 0;
}

/* Centered binomial eta = 2 from pseudoXOF(seed || nonce). */
void poly_noise(poly *p, const unsigned char seed[RLWE_SYM], unsigned char nonce)
{
    unsigned char in[RLWE_SYM + 1], buf[RLWE_N / 2];
    int i;

    memcpy(in, seed, RLWE_SYM);
    in[RLWE_SYM] = nonce;
    pseudoXOF(8 * sizeof buf, in, 8 * sizeof in, buf);
    for (i = 0; i < RLWE_N; i++) {
        unsigned b = buf[i / 2] >> (4 * (i % 2));
        p->c[i] = (int16_t)((int)((b & 1) + ((b >> 1) & 1)) - (int)(((b >> 2) & 1) + ((b >> 3) & 1)));
    }
}

void poly_mul_add(poly *r, const poly *a, const poly *s, const poly *e)
{
    int32_t acc[RLWE_N];
    int i, j;

    for (i = 0; i < RLWE_N; i++)
        acc[i] = e ? e->c[i] : 0;
    for (i = 0; i < RLWE_N; i++) {
        int32_t ai = a->c[i];
        for (j = 0; j < RLWE_N - i; j++)
            acc[i + j] += ai * s->c[j];
        for (; j < RLWE_N; j++) /* x^N = -1 */
            acc[i + j - RLWE_N] -= ai * s->c[j];
    }
    for (i = 0; i < RLWE_N; i++)
        r->c[i] = reduce(acc[i]);
}

void poly_pack(unsigned char *out, const poly *p)
{
    int i;

    for (i = 0; i < RLWE_N; i += 2) {
        unsigned v0 = (unsigned)reduce(p->c[i]), v1 = (unsigned)reduce(p->c[i + 1]);
        out[3 * i / 2] = (unsigned char)v0;
        out[3 * i / 2 + 1] = (unsigned char)((v0 >> 8) | (v1 << 4));
        out[3 * i / 2 + 2] = (unsigned char)(v1 >> 4);
    }
}

void poly_unpack(poly *p, const unsigned char *in)
{
    int i;

    for (i = 0; i < RLWE_N; i += 2) {
        const unsigned char *b = in + 3 * i / 2;
        p->c[i] = (int16_t)((b[0] | ((unsigned)(b[1] & 0x0f) << 8)) % RLWE_Q);
        p->c[i + 1] = (int16_t)(((b[1] >> 4) | ((unsigned)b[2] << 4)) % RLWE_Q);
    }
}
