#pragma once
#include <stdint.h>

/// Heap allocations this process has made since it started: every call of malloc, calloc, realloc (to a new block),
/// posix_memalign, aligned_alloc and memalign, from any thread and any library (the Swift runtime, Foundation,
/// libcurl). Counted where glibc's allocator can be wrapped (Linux); elsewhere always 0.
uint64_t allocations_made(void);

/// Whether allocations are counted in this process.
int allocations_are_counted(void);
