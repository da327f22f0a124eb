/*
 * Example hash candidate: our own compact implementation of FIPS 202 SHA3
 * (Keccak-f[1600], rate 1600 - 2d, domain bits 01, pad10*1).  CryptHash
 * accepts the instance's DIGEST_LEN_BITS only and whole-byte messages only
 * (returns -1 otherwise).  Checked against Python's hashlib in the tests.
 */
#include <stdint.h>
#include <string.h>

#include "CryptHash_AlgorithmInstance.h"

#define RATE (200 - 2 * (DIGEST_LEN_BITS / 8))

static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
static const unsigned ROT[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

static uint64_t rol(uint64_t x, unsigned n) { return n ? (x << n) | (x >> (64 - n)) : x; }

static void keccak_f(uint64_t a[25])
{
    uint64_t b[25], c[5], d;
    int r, x, y;

    for (r = 0; r < 24; r++) {
        for (x = 0; x < 5; x++)
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (x = 0; x < 5; x++) {
            d = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
            for (y = 0; y < 25; y += 5)
                a[y + x] ^= d;
        }
        for (x = 0; x < 5; x++) /* rho and pi: B[y, 2x+3y] = rot(A[x, y]) */
            for (y = 0; y < 5; y++)
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(a[x + 5 * y], ROT[x + 5 * y]);
        for (y = 0; y < 25; y += 5) /* chi */
            for (x = 0; x < 5; x++)
                a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
        a[0] ^= RC[r]; /* iota */
    }
}

static void absorb_block(uint64_t st[25], const unsigned char *blk)
{
    int i, j;

    for (i = 0; i < RATE / 8; i++)
        for (j = 0; j < 8; j++)
            st[i] ^= (uint64_t)blk[8 * i + j] << (8 * j);
    keccak_f(st);
}

int CryptHash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
              unsigned char *digest)
{
    uint64_t st[25] = {0};
    unsigned char last[RATE];
    unsigned long long len = msg_len_bits / 8;
    int i;

    if (digest_len_bits != DIGEST_LEN_BITS || msg_len_bits % 8 || digest == NULL)
        return -1;
    for (; len >= RATE; len -= RATE, msg += RATE)
        absorb_block(st, msg);
    memset(last, 0, sizeof last);
    if (len)
        memcpy(last, msg, (size_t)len);
    last[len] ^= 0x06;
    last[RATE - 1] ^= 0x80;
    absorb_block(st, last);
    for (i = 0; i < DIGEST_LEN_BITS / 8; i++)
        digest[i] = (unsigned char)(st[i / 8] >> (8 * (i % 8)));
    return 0;
}
