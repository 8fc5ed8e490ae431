#include "allocation_counter.h"

// Counts allocations by defining the allocator's entry points in the executable: the dynamic linker binds every
// library's calls of malloc & co. to the executable's definitions first, and these hand each call on to glibc's own
// allocator (its __libc_ names), counting it. swift-nio's allocation-counter tests count the same way.
#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic uint64_t counted;

static inline void count(void) { atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed); }

uint64_t allocations_made(void) { return atomic_load_explicit(&counted, memory_order_relaxed); }

int allocations_are_counted(void) { return 1; }

__attribute__((visibility("default"))) void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

__attribute__((visibility("default"))) void *calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}

__attribute__((visibility("default"))) void *realloc(void *pointer, size_t size) {
    // Growing a block in place is no new allocation for a caller, but glibc may move it; counted either way, as
    // every realloc is a call into the allocator the hot path should not make.
    count();
    return __libc_realloc(pointer, size);
}

__attribute__((visibility("default"))) void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
#else
uint64_t allocations_made(void) { return 0; }

int allocations_are_counted(void) { return 0; }
#endif
