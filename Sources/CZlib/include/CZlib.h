// zlib for permessage-deflate (RFC 7692): `deflateInit2` and `inflateInit2` are macros Swift cannot call, so each
// gets a function here. zlib is what libcurl already links (Debian: zlib1g-dev for the header; in every Apple SDK).
#ifndef RESTINGKIT_CZLIB_H
#define RESTINGKIT_CZLIB_H

#include <zlib.h>

/// A raw deflate stream (no zlib header) with a window of 2^`window_bits` bytes, at `level`.
int rk_deflate_init_raw(z_stream *stream, int level, int window_bits);
/// A raw inflate stream with a window of 2^`window_bits` bytes.
int rk_inflate_init_raw(z_stream *stream, int window_bits);

#endif
