// The floor of the open-streams benchmark: COUNT event streams held open at once by one libcurl multi handle, with
// the options a bare client needs. Waits until every stream has its first event, reads the resident memory and the
// open file descriptors, asks the server to end the streams (GET BASE/release), and checks that every stream gets
// its last event and ends cleanly. Prints "opened clean kib_per_call fds".
//   stream_open BASE_URL COUNT
#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/// Events seen (an event ends with a blank line) and the last byte, for a blank line split over two writes.
struct stream { int events; char last; };

/// Streams that have had their first event.
static int opened;

static size_t receive(char *data, size_t size, size_t count, void *user) {
    struct stream *stream = user;
    for (size_t i = 0; i < size * count; i++) {
        if (data[i] == '\n' && stream->last == '\n' && ++stream->events == 1) opened++;
        stream->last = data[i];
    }
    return size * count;
}

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static long resident_kib(void) {
    long pages = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    if (statm) fclose(statm);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int open_descriptors(void) {
    int count = 0;
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return -1;
    for (struct dirent *entry; (entry = readdir(directory));) count += entry->d_name[0] != '.';
    closedir(directory);
    return count - 1;  // the directory's own descriptor
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s BASE_URL COUNT\n", argv[0]);
        return 2;
    }
    int count = atoi(argv[2]);
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    char events[1024], release[1024];
    snprintf(events, sizeof events, "%s/events", argv[1]);
    snprintf(release, sizeof release, "%s/release", argv[1]);

    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    long baseKiB = resident_kib();
    int baseFDs = open_descriptors();
    struct stream *streams = calloc((size_t)count, sizeof *streams);
    for (int i = 0; i < count; i++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, events);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, receive);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &streams[i]);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &streams[i]);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi, easy);
    }
    int running = count, clean = 0, released = 0;
    double kibPerCall = 0;
    int fds = 0;
    while (running > 0) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct stream *stream;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&stream);
            clean += message->data.result == CURLE_OK && released && stream->events == 2;
            curl_multi_remove_handle(multi, message->easy_handle);
            curl_easy_cleanup(message->easy_handle);
        }
        if (!released && opened == count) {
            kibPerCall = (double)(resident_kib() - baseKiB) / count;
            fds = open_descriptors() - baseFDs;
            CURL *easy = curl_easy_init();
            curl_easy_setopt(easy, CURLOPT_URL, release);
            curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
            released = curl_easy_perform(easy) == CURLE_OK;
            curl_easy_cleanup(easy);
            if (!released) break;
        }
        if (running > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    printf("%d %d %.2f %d\n", opened, clean, kibPerCall, fds);
    curl_multi_cleanup(multi);
    free(streams);
    return clean == count ? 0 : 1;
}
