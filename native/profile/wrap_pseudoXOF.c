/* Linked only when the library's objects define pseudoXOF. */
#include "prof.h"

int __real_pseudoXOF(unsigned long long, const unsigned char *, unsigned long long,
                     unsigned char *);

int __wrap_pseudoXOF(unsigned long long out_bits, const unsigned char *msg,
                     unsigned long long msg_bits, unsigned char *out)
{
    uint64_t t0 = 0;
    int k = ngcc_prof_enter(&t0);
    int r = __real_pseudoXOF(out_bits, msg, msg_bits, out);
    ngcc_prof_leave(k, NGCC_FN_PSEUDOXOF, msg_bits, out_bits, t0);
    return r;
}
