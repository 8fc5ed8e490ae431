// The baseline: a plain C libcurl multi loop keeping `concurrency` GETs in flight on reused handles,
// until `total` have completed. Prints one line: "requests seconds cpu_seconds voluntary_switches p50_us p99_us
// p999_us", the latencies measured from each request's `curl_multi_add_handle` to its completion.
//   multi_get URL CONCURRENCY TOTAL [same-options] [ca=FILE] [threads=N] [work=US] [worker] [http3]
// With `same-options` each handle carries the options CurlClient sets by default (decompression, the idle timer,
// connect timeout, size limit, HTTP version, protocols, header and progress callbacks, `Expect:` removed, waiting to
// multiplex over TLS): the baseline for CurlClient.send, so that the ratio shows the Swift side's cost and not
// libcurl's extra work. `ca=FILE` trusts that authority. `threads=N` splits the load over N threads, each with a
// multi handle and so a connection of its own: the C form of CurlClient's drivers spreading an HTTP/2 origin.
// `work=US` gives each response US microseconds of CPU work before its slot takes the next request — what a client
// does with a response (decoding it, its pipeline); the loop's own thread does it, unless `worker`: then a thread of
// its own does, and hands the slot back (curl_multi_wakeup) — the shape of CurlClient on one HTTP/2 connection, whose
// driver does the connection's I/O while the others run the calls' pipelines. `http3`, with `same-options`: HTTP/3
// only (CURL_HTTP_VERSION_3ONLY), as CurlClient with `.http3Only`, on a libcurl that speaks it.
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
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

/// The HTTP version `same-options` asks for: CurlClient's default, or HTTP/3 only with `http3`.
static long httpVersion = (long)CURL_HTTP_VERSION_2TLS;

static void set_same_options(CURL *easy, const char *url, struct curl_slist *headers, size_t *seen) {
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
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, httpVersion);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, strncmp(url, "https:", 6) == 0 ? 1L : 0L);
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

/// Spends `us` microseconds of this thread's CPU time.
static void work_for(long us) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    double until = t.tv_sec + t.tv_nsec / 1e9 + us / 1e6;
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while (t.tv_sec + t.tv_nsec / 1e9 < until);
}

/// Slots passed between the loop and its worker: a ring that holds every slot at once.
typedef struct {
    int *slots, capacity, head, count;
} ring;

static void ring_push(ring *r, int slot) { r->slots[(r->head + r->count++) % r->capacity] = slot; }

static int ring_pop(ring *r) {
    int slot = r->slots[r->head];
    r->head = (r->head + 1) % r->capacity;
    r->count--;
    return slot;
}

/// One thread's share of the load, and what it measured.
typedef struct {
    const char *url, *ca;
    int concurrency, total, sameOptions;
    long work;
    struct curl_slist *headers;
    size_t headersSeen;
    latency_histogram latencies;
    int failed;
    // With a worker: the slots whose responses wait for their work, and those whose work is done.
    int hasWorker, stopping;
    CURLM *multi;
    pthread_t worker;
    pthread_mutex_t lock;
    pthread_cond_t queued;
    ring toWork, worked;
} loop;

static void *run_worker(void *argument) {
    loop *l = argument;
    pthread_mutex_lock(&l->lock);
    while (1) {
        while (l->toWork.count == 0 && !l->stopping) pthread_cond_wait(&l->queued, &l->lock);
        if (l->toWork.count == 0) break;
        int slot = ring_pop(&l->toWork);
        pthread_mutex_unlock(&l->lock);
        work_for(l->work);
        pthread_mutex_lock(&l->lock);
        ring_push(&l->worked, slot);
        curl_multi_wakeup(l->multi);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/// Counts and records a slot's finished request and starts its next one (or cleans its handle up after the last).
static void next(loop *l, CURLM *multi, CURL **handles, uint64_t *startedAt, int slot, int *started, int *finished) {
    (*finished)++;
    uint64_t done = monotonic_ns();
    latency_record(&l->latencies, done - startedAt[slot]);
    if (*started < l->total) {
        (*started)++;
        startedAt[slot] = done;
        curl_multi_add_handle(multi, handles[slot]);  // options persist: reuse the handle as it is
    } else {
        curl_easy_cleanup(handles[slot]);
    }
}

static void *run_loop(void *argument) {
    loop *l = argument;
    CURLM *multi = curl_multi_init();
    int started = 0, finished = 0, running = 0;
    uint64_t *startedAt = calloc((size_t)l->concurrency, sizeof(uint64_t));
    CURL **handles = calloc((size_t)l->concurrency, sizeof(CURL *));
    if (l->hasWorker) {
        l->multi = multi;
        l->toWork = (ring){calloc((size_t)l->concurrency, sizeof(int)), l->concurrency, 0, 0};
        l->worked = (ring){calloc((size_t)l->concurrency, sizeof(int)), l->concurrency, 0, 0};
        pthread_mutex_init(&l->lock, NULL);
        pthread_cond_init(&l->queued, NULL);
        pthread_create(&l->worker, NULL, run_worker, l);
    }
    for (int i = 0; i < l->concurrency && started < l->total; i++, started++) {
        CURL *easy = handles[i] = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)(intptr_t)i);
        curl_easy_setopt(easy, CURLOPT_URL, l->url);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        if (l->ca) curl_easy_setopt(easy, CURLOPT_CAINFO, l->ca);
        if (l->sameOptions) set_same_options(easy, l->url, l->headers, &l->headersSeen);
        curl_multi_add_handle(multi, easy);
    }
    for (int i = 0; i < l->concurrency; i++) startedAt[i] = monotonic_ns();
    while (finished < l->total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            if (message->data.result != CURLE_OK) {
                fprintf(stderr, "transfer failed: %s\n", curl_easy_strerror(message->data.result));
                l->failed = 1;
                return NULL;
            }
            char *slot;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
            curl_multi_remove_handle(multi, easy);
            if (l->hasWorker) {
                pthread_mutex_lock(&l->lock);
                ring_push(&l->toWork, (int)(intptr_t)slot);
                pthread_cond_signal(&l->queued);
                pthread_mutex_unlock(&l->lock);
                continue;
            }
            if (l->work) work_for(l->work);
            next(l, multi, handles, startedAt, (int)(intptr_t)slot, &started, &finished);
        }
        if (l->hasWorker) {
            pthread_mutex_lock(&l->lock);
            while (l->worked.count > 0) next(l, multi, handles, startedAt, ring_pop(&l->worked), &started, &finished);
            pthread_mutex_unlock(&l->lock);
        }
        if (finished < l->total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    if (l->hasWorker) {
        pthread_mutex_lock(&l->lock);
        l->stopping = 1;
        pthread_cond_signal(&l->queued);
        pthread_mutex_unlock(&l->lock);
        pthread_join(l->worker, NULL);
        free(l->toWork.slots);
        free(l->worked.slots);
    }
    free(handles);
    free(startedAt);
    curl_multi_cleanup(multi);
    return NULL;
}

int main(int argc, char **argv) {
    int sameOptions = 0, threads = 1, hasWorker = 0;
    long work = 0;
    const char *ca = NULL;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "same-options") == 0) sameOptions = 1;
        else if (strncmp(argv[i], "ca=", 3) == 0) ca = argv[i] + 3;
        else if (strncmp(argv[i], "threads=", 8) == 0) threads = atoi(argv[i] + 8);
        else if (strncmp(argv[i], "work=", 5) == 0) work = atol(argv[i] + 5);
        else if (strcmp(argv[i], "worker") == 0) hasWorker = 1;
        else if (strcmp(argv[i], "http3") == 0) httpVersion = (long)CURL_HTTP_VERSION_3ONLY;
        else argc = 0;
    }
    if (argc < 4 || threads < 1) {
        fprintf(stderr,
                "usage: %s URL CONCURRENCY TOTAL [same-options] [ca=FILE] [threads=N] [work=US] [worker] [http3]\n",
                argv[0]);
        return 2;
    }
    struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
    int concurrency = atoi(argv[2]), total = atoi(argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    loop *loops = calloc((size_t)threads, sizeof(loop));
    pthread_t *ids = calloc((size_t)threads, sizeof(pthread_t));
    for (int t = 0; t < threads; t++) {
        // The remainders go to the first threads, so that the shares add up.
        loops[t] = (loop){.url = argv[1], .ca = ca, .sameOptions = sameOptions, .headers = headers, .work = work,
                          .hasWorker = hasWorker,
                          .concurrency = concurrency / threads + (t < concurrency % threads),
                          .total = total / threads + (t < total % threads)};
    }
    long switchesBefore, switchesAfter;
    double cpuBefore = cpu(&switchesBefore), start = now();
    for (int t = 1; t < threads; t++) pthread_create(&ids[t], NULL, run_loop, &loops[t]);
    run_loop(&loops[0]);
    for (int t = 1; t < threads; t++) pthread_join(ids[t], NULL);
    double elapsed = now() - start, cpuUsed = cpu(&switchesAfter) - cpuBefore;
    static latency_histogram latencies;
    for (int t = 0; t < threads; t++) {
        if (loops[t].failed) return 1;
        for (int index = 0; index < LATENCY_BUCKETS; index++) latencies.counts[index] += loops[t].latencies.counts[index];
        latencies.total += loops[t].latencies.total;
    }
    printf("%d %.6f %.6f %ld", total, elapsed, cpuUsed, switchesAfter - switchesBefore);
    latency_print(&latencies);
    printf("\n");
    free(loops);
    free(ids);
    curl_slist_free_all(headers);
    return 0;
}
