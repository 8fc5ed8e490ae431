// Before any header: dlsym's RTLD_NEXT is a GNU extension.
#define _GNU_SOURCE
#include "metadata_lookup_counter.h"

// Counts the runtime's generic metadata lookups as allocation_counter.c counts allocations: the executable defines
// swift_getGenericMetadata, so the code linked into it (RestingKit's, the probe's) and every library the dynamic linker
// binds calls it; the definition counts the call and hands it on to the runtime's own, found past the executable.
#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

// The runtime's declaration: a request word, the type's arguments and its descriptor in; the metadata and its state
// out, in Swift's calling convention.
typedef struct {
    const void *value;
    size_t state;
} MetadataResponse;

typedef MetadataResponse (*MetadataLookup)(size_t, const void *const *, const void *) __attribute__((swiftcall));

static _Atomic uint64_t counted;
static _Atomic(MetadataLookup) runtimes;

uint64_t metadata_lookups_made(void) { return atomic_load_explicit(&counted, memory_order_relaxed); }

int metadata_lookups_are_counted(void) { return 1; }

__attribute__((visibility("default"), swiftcall)) MetadataResponse swift_getGenericMetadata(
    size_t request, const void *const *arguments, const void *descriptor) {
    atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed);
    MetadataLookup lookup = atomic_load_explicit(&runtimes, memory_order_acquire);
    if (lookup == NULL) {
        // Two threads may both look it up the first time; they find the same function.
        lookup = (MetadataLookup)dlsym(RTLD_NEXT, "swift_getGenericMetadata");
        if (lookup == NULL) abort();
        atomic_store_explicit(&runtimes, lookup, memory_order_release);
    }
    return lookup(request, arguments, descriptor);
}
#else
uint64_t metadata_lookups_made(void) { return 0; }

int metadata_lookups_are_counted(void) { return 0; }
#endif
