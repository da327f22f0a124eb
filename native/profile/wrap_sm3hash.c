/* Linked only when the library's objects define sm3hash. */
#include "prof.h"

int __real_sm3hash(int, const unsigned char *, unsigned long long, unsigned char *);

int __wrap_sm3hash(int digest_bits, const unsigned char *msg, unsigned long long msg_bits,
                   unsigned char *digest)
{
    uint64_t t0 = 0;
    int k = ngcc_prof_enter(&t0);
    int r = __real_sm3hash(digest_bits, msg, msg_bits, digest);
    ngcc_prof_leave(k, NGCC_FN_SM3HASH, msg_bits, (unsigned long long)digest_bits, t0);
    return r;
}
