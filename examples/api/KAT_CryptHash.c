/*
 * KAT driver for the NGCC Perf example hash (our own, official convention,
 * see KAT_KEM.c).  Record i hashes a message of MSG_BYTES[i] bytes drawn from
 * the seed DRNG; lengths cover the empty message and block boundaries.
 * Exit: 0 ok, -1 I/O, -3 CryptHash failed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "CryptHash_AlgorithmInstance.h"
#include "drng.h"

#define RECORDS 10
#define SEED_BYTES 64

DRNG_ctx drng_algorithm;

static const unsigned MSG_BYTES[RECORDS] = {0, 1, 3, 55, 56, 64, 71, 72, 136, 1000};

static void put_hex(FILE *f, const char *name, const unsigned char *b, unsigned long long n)
{
    unsigned long long i;

    fprintf(f, "%s = ", name);
    for (i = 0; i < n; i++)
        fprintf(f, "%02X", b[i]);
    fputc('\n', f);
}

int main(void)
{
    unsigned char nonce[SEED_BYTES], msg[1000], md[DIGEST_LEN_BITS / 8];
    DRNG_ctx seeder;
    char path[256];
    FILE *f;
    int i;

    for (i = 0; i < SEED_BYTES; i++)
        nonce[i] = (unsigned char)"seed"[i % 4];
    init_random_number(&seeder, nonce, sizeof nonce);
    init_random_number(&drng_algorithm, nonce, sizeof nonce);
    mkdir("output", 0755);
    snprintf(path, sizeof path, "output/KAT_CryptHash_%s.txt", ALGORITHM_INSTANCE);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (i = 0; i < RECORDS; i++) {
        unsigned long long bits = 8ull * MSG_BYTES[i];
        get_random_number(&seeder, msg, bits);
        if (CryptHash(DIGEST_LEN_BITS, msg, bits, md) != 0) {
            fclose(f);
            return -3;
        }
        fprintf(f, "Count = %d\nLen = %llu\n", i, bits);
        put_hex(f, "Msg", msg, MSG_BYTES[i]);
        put_hex(f, "MD", md, sizeof md);
        fputc('\n', f);
    }
    fclose(f);
    return 0;
}
