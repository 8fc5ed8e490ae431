// The baseline for large transfers: plain C libcurl, streaming from and to files. Prints "bytes seconds".
//   transfer upload-raw URL FILE          PUT FILE with its exact length, read through the read callback
//   transfer upload-multipart URL FILE    PUT a multipart form (a text field, then FILE as part "file"),
//                                         streamed by curl_mime_filedata
//   transfer download URL COUNT DIR       COUNT GETs of URL at once on the multi interface, into DIR/download-N.bin
//   transfer stream URL                   one GET of URL, its body handed to a write callback that discards it
// For Benchmarks/http3.py: BENCH_CA trusts that authority, BENCH_HTTP3=1 speaks HTTP/3 only (on a libcurl with it).
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static size_t read_file(char *buffer, size_t size, size_t count, void *file) {
    return fread(buffer, size, count, (FILE *)file);
}

static size_t write_file(char *data, size_t size, size_t count, void *file) {
    return fwrite(data, size, count, (FILE *)file);
}

static int check(CURLcode code, long status) {
    if (code != CURLE_OK || status >= 300) {
        fprintf(stderr, "transfer failed: %s, HTTP %ld\n", curl_easy_strerror(code), status);
        return 1;
    }
    return 0;
}

static int upload(const char *mode, const char *url, const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); return 1; }
    fseek(file, 0, SEEK_END);
    long long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_mime *mime = NULL;
    if (strcmp(mode, "upload-raw") == 0) {
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_READFUNCTION, read_file);
        curl_easy_setopt(easy, CURLOPT_READDATA, file);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
    } else {
        mime = curl_mime_init(easy);
        curl_mimepart *field = curl_mime_addpart(mime);
        curl_mime_name(field, "caption");
        curl_mime_data(field, "benchmark", CURL_ZERO_TERMINATED);
        curl_mimepart *part = curl_mime_addpart(mime);
        curl_mime_name(part, "file");
        curl_mime_filedata(part, path);
        curl_mime_type(part, "application/octet-stream");
        curl_easy_setopt(easy, CURLOPT_MIMEPOST, mime);
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
    }
    double start = now();
    CURLcode code = curl_easy_perform(easy);
    double seconds = now() - start;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t sent = 0;
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &sent);
    int failed = check(code, status);
    if (!failed) printf("%lld %.6f\n", (long long)sent, seconds);
    curl_mime_free(mime);
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
    fclose(file);
    return failed;
}

static int download(const char *url, int count, const char *directory) {
    CURLM *multi = curl_multi_init();
    CURL *easies[64];
    FILE *files[64];
    if (count > 64) count = 64;
    for (int i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/download-%d.bin", directory, i);
        files[i] = fopen(path, "wb");
        if (!files[i]) { perror(path); return 1; }
        easies[i] = curl_easy_init();
        curl_easy_setopt(easies[i], CURLOPT_URL, url);
        curl_easy_setopt(easies[i], CURLOPT_WRITEFUNCTION, write_file);
        curl_easy_setopt(easies[i], CURLOPT_WRITEDATA, files[i]);
        curl_multi_add_handle(multi, easies[i]);
    }
    double start = now();
    int running = count, failed = 0;
    long long bytes = 0;
    while (running) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            curl_off_t received = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_SIZE_DOWNLOAD_T, &received);
            bytes += received;
            failed |= check(message->data.result, status);
        }
        if (running) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double seconds = now() - start;
    for (int i = 0; i < count; i++) {
        curl_multi_remove_handle(multi, easies[i]);
        curl_easy_cleanup(easies[i]);
        fclose(files[i]);
    }
    curl_multi_cleanup(multi);
    if (!failed) printf("%lld %.6f\n", bytes, seconds);
    return failed;
}

static int stream(const char *url) {
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    if (getenv("BENCH_CA") != NULL) curl_easy_setopt(easy, CURLOPT_CAINFO, getenv("BENCH_CA"));
    if (getenv("BENCH_HTTP3") != NULL) curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_3ONLY);
    double start = now();
    CURLcode result = curl_easy_perform(easy);
    double seconds = now() - start;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t received = 0;
    curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &received);
    curl_easy_cleanup(easy);
    int failed = check(result, status);
    if (!failed) printf("%lld %.6f\n", (long long)received, seconds);
    return failed;
}

int main(int argc, char **argv) {
    curl_global_init(CURL_GLOBAL_ALL);
    if (argc == 4 && strncmp(argv[1], "upload-", 7) == 0) return upload(argv[1], argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "download") == 0) return download(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 3 && strcmp(argv[1], "stream") == 0) return stream(argv[2]);
    fprintf(stderr, "usage: %s upload-raw|upload-multipart URL FILE | download URL COUNT DIR | stream URL\n", argv[0]);
    return 2;
}
