/* Linked only when the library's objects define get_random_number.  The
 * context is opaque here: only its pointer is passed on. */
#include "prof.h"

int __real_get_random_number(void *, unsigned char *, unsigned long long);

int __wrap_get_random_number(void *ctx, unsigned char *out, unsigned long long len_bits)
{
    uint64_t t0 = 0;
    int k = ngcc_prof_enter(&t0);
    int r = __real_get_random_number(ctx, out, len_bits);
    /* Recorded as "drng": no input, len_bits of output. */
    ngcc_prof_leave(k, NGCC_FN_DRNG, 0, len_bits, t0);
    return r;
}
