// The baseline: a plain C libcurl multi loop keeping `concurrency` GETs in flight on reused handles,
// until `total` have completed. Prints one line: "requests seconds cpu_seconds voluntary_switches p50_us p99_us
// p999_us", the latencies measured from each request's `curl_multi_add_handle` to its completion.
//   multi_get URL CONCURRENCY TOTAL [same-options]
// With `same-options` each handle carries the options CurlClient sets by default (decompression, the idle timer,
// connect timeout, size limit, HTTP version, protocols, header and progress callbacks, `Expect:` removed): the
// baseline for CurlClient.send, so that the ratio shows the Swift side's cost and not libcurl's extra work.
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "latency.h"

static size_t sink(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

/// Finds each header's colon, as any client that keeps headers must.
static size_t header(char *data, size_t size, size_t count, void *user) {
    size_t *seen = user;
    if (memchr(data, ':', size * count)) (*seen)++;
    return size * count;
}

static int progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)user; (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return 0;
}

static void set_same_options(CURL *easy, struct curl_slist *headers, size_t *seen) {
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, seen);
    curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)64 * 1024 * 1024);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(long *switches) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *switches = usage.ru_nvcsw;
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "same-options") == 0)) {
        fprintf(stderr, "usage: %s URL CONCURRENCY TOTAL [same-options]\n", argv[0]);
        return 2;
    }
    int sameOptions = argc == 5;
    struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
    size_t headersSeen = 0;
    const char *url = argv[1];
    int concurrency = atoi(argv[2]), total = atoi(argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    int started = 0, finished = 0, running = 0;
    uint64_t *startedAt = calloc((size_t)concurrency, sizeof(uint64_t));
    static latency_histogram latencies;
    for (int i = 0; i < concurrency && started < total; i++, started++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)(intptr_t)i);
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        if (sameOptions) set_same_options(easy, headers, &headersSeen);
        curl_multi_add_handle(multi, easy);
    }
    long switchesBefore, switchesAfter;
    double cpuBefore = cpu(&switchesBefore), start = now();
    for (int i = 0; i < concurrency; i++) startedAt[i] = monotonic_ns();
    while (finished < total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            if (message->data.result != CURLE_OK) {
                fprintf(stderr, "transfer failed: %s\n", curl_easy_strerror(message->data.result));
                return 1;
            }
            finished++;
            char *slot;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
            uint64_t done = monotonic_ns();
            latency_record(&latencies, done - startedAt[(intptr_t)slot]);
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                started++;
                startedAt[(intptr_t)slot] = done;
                curl_multi_add_handle(multi, easy);  // options persist: reuse the handle as it is
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double elapsed = now() - start, cpuUsed = cpu(&switchesAfter) - cpuBefore;
    printf("%d %.6f %.6f %ld", total, elapsed, cpuUsed, switchesAfter - switchesBefore);
    latency_print(&latencies);
    printf("\n");
    free(startedAt);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    return 0;
}
