// The baseline: a plain C libcurl multi loop keeping `concurrency` GETs in flight on reused handles,
// until `total` have completed. Prints one line: "requests seconds cpu_seconds voluntary_switches".
//   multi_get URL CONCURRENCY TOTAL
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static size_t sink(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
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
    if (argc != 4) {
        fprintf(stderr, "usage: %s URL CONCURRENCY TOTAL\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    int concurrency = atoi(argv[2]), total = atoi(argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    int started = 0, finished = 0, running = 0;
    for (int i = 0; i < concurrency && started < total; i++, started++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi, easy);
    }
    long switchesBefore, switchesAfter;
    double cpuBefore = cpu(&switchesBefore), start = now();
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
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                started++;
                curl_multi_add_handle(multi, easy);  // options persist: reuse the handle as it is
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double elapsed = now() - start, cpuUsed = cpu(&switchesAfter) - cpuBefore;
    printf("%d %.6f %.6f %ld\n", total, elapsed, cpuUsed, switchesAfter - switchesBefore);
    curl_multi_cleanup(multi);
    return 0;
}
