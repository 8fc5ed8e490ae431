#pragma once
#include <stddef.h>

/// Bytes the C allocator has handed out and not had back.
size_t heap_in_use(void);
