/*
 * KAT driver for the NGCC Perf example KEMs (our own, following the official
 * convention): defines drng_algorithm, derives one 64-byte seed per record
 * from a DRNG seeded with "seed" x 16, re-seeds drng_algorithm per record and
 * writes output/KAT_KEM_<ALGORITHM_INSTANCE>.txt.
 * Exit: 0 ok, -1 I/O or allocation, -3 an operation failed, -5 decapsulation
 * disagrees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "KEM_AlgorithmInstance.h"
#include "drng.h"

#define RECORDS 10
#define SEED_BYTES 64

DRNG_ctx drng_algorithm;

static void put(FILE *f, const char *name, const unsigned char *b, unsigned long long n)
{
    unsigned long long i;

    fprintf(f, "%s_Len = %llu\n%s = ", name, n, name);
    for (i = 0; i < n; i++)
        fprintf(f, "%02X", b[i]);
    fputc('\n', f);
}

int main(void)
{
    unsigned char nonce[SEED_BYTES], seed[SEED_BYTES];
    unsigned long long pk_len = kem_get_pk_len_bytes(), sk_len = kem_get_sk_len_bytes();
    unsigned long long ct_len = kem_get_ct_len_bytes(), ss_len = kem_get_ss_len_bytes();
    unsigned char *pk = malloc(pk_len), *sk = malloc(sk_len), *ct = malloc(ct_len);
    unsigned char *ss = malloc(ss_len), *ss2 = malloc(ss_len);
    DRNG_ctx seeder;
    char path[256];
    FILE *f;
    int i, rc = 0;

    if (!pk || !sk || !ct || !ss || !ss2)
        return -1;
    for (i = 0; i < SEED_BYTES; i++)
        nonce[i] = (unsigned char)"seed"[i % 4];
    init_random_number(&seeder, nonce, sizeof nonce);
    mkdir("output", 0755);
    snprintf(path, sizeof path, "output/KAT_KEM_%s.txt", ALGORITHM_INSTANCE);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (i = 0; i < RECORDS && rc == 0; i++) {
        unsigned long long pkl = pk_len, skl = sk_len, ctl = ct_len, ssl = ss_len, ssl2 = ss_len;
        get_random_number(&seeder, seed, 8 * SEED_BYTES);
        init_random_number(&drng_algorithm, seed, SEED_BYTES);
        fprintf(f, "Count = %d\n", i);
        put(f, "Seed", seed, SEED_BYTES);
        if (kem_keygen(pk, &pkl, sk, &skl) != 0 || kem_enc(pk, pkl, ss, &ssl, ct, &ctl) != 0 ||
            kem_dec(sk, skl, ct, ctl, ss2, &ssl2) != 0) {
            rc = -3;
            break;
        }
        if (ssl != ssl2 || memcmp(ss, ss2, ssl) != 0)
            rc = -5;
        put(f, "PK", pk, pkl);
        put(f, "SK", sk, skl);
        put(f, "CT", ct, ctl);
        put(f, "SS", ss, ssl);
        fputc('\n', f);
    }
    fclose(f);
    free(pk); free(sk); free(ct); free(ss); free(ss2);
    return rc;
}
