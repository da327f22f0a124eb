/* Process memory figures: resident set (now and peak) and the stack
 * high-water mark of one operation call. */
#ifndef NGCC_MEM_H
#define NGCC_MEM_H

#include "ops.h"

/* VmRSS / VmHWM from /proc/self/status, in bytes; -1 if unreadable. */
long long ngcc_rss_bytes(void);
long long ngcc_peak_rss_bytes(void);

/* Stack bytes used by one op->call, measured in a forked child on a painted
 * stack of `stack_bytes`.  Returns -1 if the child failed (e.g. overflowed). */
long long ngcc_stack_high_water(ngcc_op *op, size_t stack_bytes);

#endif
