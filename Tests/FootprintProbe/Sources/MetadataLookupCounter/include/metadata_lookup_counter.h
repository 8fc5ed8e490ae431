#pragma once
#include <stdint.h>

/// Generic type metadata this process has asked the Swift runtime for since it started: every call of
/// `swift_getGenericMetadata`, the runtime's hashed lookup behind every generic type whose arguments the compiled code
/// did not know (the pipeline's `RestingRequest<Endpoint>`, `RestingResponse<Response>`, …), from any thread. Counted
/// where the executable's definition can stand in for the runtime's (Linux); elsewhere always 0.
uint64_t metadata_lookups_made(void);

/// Whether metadata lookups are counted in this process.
int metadata_lookups_are_counted(void);
