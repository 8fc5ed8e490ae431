#include "CZlib.h"

int rk_deflate_init_raw(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY);
}

int rk_inflate_init_raw(z_stream *stream, int window_bits) {
    return inflateInit2(stream, -window_bits);
}
