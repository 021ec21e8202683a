#ifndef CONNECT_ALLOCATION_COUNTER_H
#define CONNECT_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, aligned allocations) made by this process so far.
uint64_t connect_allocation_count(void);

#endif
