/*
 * KAT driver for the NGCC Perf example signatures (our own, official
 * convention, see KAT_KEM.c).  Record i signs a message of 33*(i+1) bytes
 * drawn from the record's seed DRNG after the seed itself.
 * Exit: 0 ok, -1 I/O or allocation, -3 an operation failed, -5 the honest
 * signature is rejected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "SIG_AlgorithmInstance.h"
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
    unsigned char nonce[SEED_BYTES], seed[SEED_BYTES], msg[33 * RECORDS];
    unsigned long long pk_len = sig_get_pk_len_bytes(), sk_len = sig_get_sk_len_bytes();
    unsigned long long sn_len = sig_get_sn_len_bytes();
    unsigned char *pk = malloc(pk_len), *sk = malloc(sk_len), *sn = malloc(sn_len);
    DRNG_ctx seeder;
    char path[256];
    FILE *f;
    int i, rc = 0;

    if (!pk || !sk || !sn)
        return -1;
    for (i = 0; i < SEED_BYTES; i++)
        nonce[i] = (unsigned char)"seed"[i % 4];
    init_random_number(&seeder, nonce, sizeof nonce);
    mkdir("output", 0755);
    snprintf(path, sizeof path, "output/KAT_SIG_%s.txt", ALGORITHM_INSTANCE);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (i = 0; i < RECORDS && rc == 0; i++) {
        unsigned long long pkl = pk_len, skl = sk_len, snl = sn_len, ml = 33ull * (i + 1);
        get_random_number(&seeder, seed, 8 * SEED_BYTES);
        get_random_number(&seeder, msg, 8 * ml);
        init_random_number(&drng_algorithm, seed, SEED_BYTES);
        fprintf(f, "Count = %d\n", i);
        put(f, "Seed", seed, SEED_BYTES);
        put(f, "MSG", msg, ml);
        if (sig_keygen(pk, &pkl, sk, &skl) != 0 || sig_sign(sk, skl, msg, ml, sn, &snl) != 0) {
            rc = -3;
            break;
        }
        if (sig_verify(pk, pkl, sn, snl, msg, ml) != 0)
            rc = -5;
        put(f, "PK", pk, pkl);
        put(f, "SK", sk, skl);
        put(f, "SN", sn, snl);
        fputc('\n', f);
    }
    fclose(f);
    free(pk); free(sk); free(sn);
    return rc;
}
