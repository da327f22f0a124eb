/* Linked only when the library's objects define pseudohash (else the
 * __real_ reference would be undefined). */
#include "prof.h"

int __real_pseudohash(int, const unsigned char *, unsigned long long, unsigned char *);

int __wrap_pseudohash(int digest_bits, const unsigned char *msg, unsigned long long msg_bits,
                      unsigned char *digest)
{
    uint64_t t0 = 0;
    int k = ngcc_prof_enter(&t0);
    int r = __real_pseudohash(digest_bits, msg, msg_bits, digest);
    ngcc_prof_leave(k, NGCC_FN_PSEUDOHASH, msg_bits, (unsigned long long)digest_bits, t0);
    return r;
}
