// Per-request latencies in HdrHistogram-style buckets: exact below 128 ns, then 64 buckets per power of two (at most
// 1.6 % off), in one array allocated up front, so that recording a sample allocates nothing.
// Benchmarks/Swift/LatencyHistogram.swift is the same histogram in Swift; both print "p50_us p99_us p999_us".
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define LATENCY_BUCKETS (64 * 64)

typedef struct { uint64_t counts[LATENCY_BUCKETS]; uint64_t total; } latency_histogram;

static uint64_t monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int latency_bucket(uint64_t ns) {
    if (ns < 128) return (int)ns;
    int shift = 64 - __builtin_clzll(ns) - 7;  // leaves the value's top 7 bits: 64 ... 127
    int index = (shift + 1) * 64 + (int)((ns >> shift) - 64);
    return index < LATENCY_BUCKETS ? index : LATENCY_BUCKETS - 1;
}

/// The lowest value the bucket holds.
static uint64_t latency_bucket_value(int index) {
    if (index < 128) return (uint64_t)index;
    int shift = index / 64 - 1;
    return (uint64_t)(index % 64 + 64) << shift;
}

static void latency_record(latency_histogram *histogram, uint64_t ns) {
    histogram->counts[latency_bucket(ns)]++;
    histogram->total++;
}

static double latency_percentile_us(const latency_histogram *histogram, double fraction) {
    uint64_t rank = (uint64_t)(fraction * (double)histogram->total + 0.999999), seen = 0;
    for (int index = 0; index < LATENCY_BUCKETS; index++) {
        seen += histogram->counts[index];
        if (seen >= rank && seen > 0) return latency_bucket_value(index) / 1000.0;
    }
    return 0;
}

static void latency_print(const latency_histogram *histogram) {
    printf(" %.1f %.1f %.1f", latency_percentile_us(histogram, 0.5), latency_percentile_us(histogram, 0.99),
           latency_percentile_us(histogram, 0.999));
}
