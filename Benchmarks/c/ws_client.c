// The floor of the WebSocket benchmark: RFC 6455 in C over the connection libcurl opens (CURLOPT_CONNECT_ONLY, then
// curl_easy_send / curl_easy_recv) — what CurlClient's WebSocket does, with nothing between. Frames are masked with a
// fresh key each, as a client must; replies are read into one reused buffer.
//   ws_client echo BASE_URL COUNT          COUNT round trips of a 5-byte text message: prints messages a second
//   ws_client echo-1m BASE_URL COUNT       COUNT round trips of a 1 MiB binary message: prints MiB a second (one way)
//   ws_client open BASE_URL COUNT          COUNT sockets open at once, each with a 1 KiB buffer of its own: prints
//                                          the resident KiB each costs once all are open
#include <curl/curl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void wait_for(CURL *handle, short events) {
    curl_socket_t socket;
    curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket);
    struct pollfd descriptor = {.fd = socket, .events = events};
    poll(&descriptor, 1, 10000);
}

static int send_all(CURL *handle, const unsigned char *bytes, size_t count) {
    size_t done = 0;
    while (done < count) {
        size_t sent = 0;
        CURLcode code = curl_easy_send(handle, bytes + done, count - done, &sent);
        if (code == CURLE_AGAIN) { wait_for(handle, POLLOUT); continue; }
        if (code != CURLE_OK) return -1;
        done += sent;
    }
    return 0;
}

static int receive_exactly(CURL *handle, unsigned char *bytes, size_t count) {
    size_t done = 0;
    while (done < count) {
        size_t got = 0;
        CURLcode code = curl_easy_recv(handle, bytes + done, count - done, &got);
        if (code == CURLE_AGAIN) { wait_for(handle, POLLIN); continue; }
        if (code != CURLE_OK || got == 0) return -1;
        done += got;
    }
    return 0;
}

static uint32_t next_key(void) {
    static uint64_t state = 0x9E3779B97F4A7C15u;
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (uint32_t)state;
}

/// A masked frame of `payload` into `frame` (which has room for it and 14 bytes more): its length.
static size_t masked_frame(int opcode, const unsigned char *payload, size_t length, unsigned char *frame) {
    size_t at = 0;
    frame[at++] = (unsigned char)(0x80 | opcode);
    if (length < 126) {
        frame[at++] = (unsigned char)(0x80 | length);
    } else if (length < 65536) {
        frame[at++] = 0x80 | 126;
        frame[at++] = (unsigned char)(length >> 8);
        frame[at++] = (unsigned char)length;
    } else {
        frame[at++] = 0x80 | 127;
        for (int i = 0; i < 8; i++) frame[at++] = (unsigned char)((uint64_t)length >> (56 - 8 * i));
    }
    uint32_t key = next_key();
    unsigned char mask[4] = {key >> 24, key >> 16, key >> 8, key};
    memcpy(frame + at, mask, 4);
    at += 4;
    for (size_t i = 0; i < length; i++) frame[at + i] = payload[i] ^ mask[i % 4];
    return at + length;
}

/// Reads one unmasked frame's payload into `buffer`: its length, or -1.
static long read_frame(CURL *handle, unsigned char *buffer, size_t capacity) {
    unsigned char head[10];
    if (receive_exactly(handle, head, 2) != 0) return -1;
    uint64_t length = head[1] & 0x7F;
    if (length == 126) {
        if (receive_exactly(handle, head + 2, 2) != 0) return -1;
        length = ((uint64_t)head[2] << 8) | head[3];
    } else if (length == 127) {
        if (receive_exactly(handle, head + 2, 8) != 0) return -1;
        length = 0;
        for (int i = 2; i < 10; i++) length = (length << 8) | head[i];
    }
    if (length > capacity || receive_exactly(handle, buffer, length) != 0) return -1;
    return (long)length;
}

static CURL *open_socket(const char *base) {
    CURL *handle = curl_easy_init();
    curl_easy_setopt(handle, CURLOPT_URL, base);
    curl_easy_setopt(handle, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(handle, CURLOPT_BUFFERSIZE, 1024L);
    curl_easy_setopt(handle, CURLOPT_TCP_NODELAY, 1L);
    if (curl_easy_perform(handle) != CURLE_OK) return NULL;
    // Connected: as CurlClient does, up to 64 KiB a read from now on (libcurl caps each curl_easy_recv at the receive
    // buffer's size, which stays the 1 KiB allocated for the connect).
    curl_easy_setopt(handle, CURLOPT_BUFFERSIZE, 65536L);
    const char *host = strstr(base, "://") ? strstr(base, "://") + 3 : base;
    char request[512];
    int length = snprintf(request, sizeof request,
                          "GET /echo HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", host);
    if (send_all(handle, (unsigned char *)request, (size_t)length) != 0) return NULL;
    char answer[1024];
    size_t used = 0;
    while (used < sizeof answer - 1) {
        size_t got = 0;
        CURLcode code = curl_easy_recv(handle, answer + used, 1, &got);  // a byte at a time: nothing read past the head
        if (code == CURLE_AGAIN) { wait_for(handle, POLLIN); continue; }
        if (code != CURLE_OK || got == 0) return NULL;
        used += got;
        answer[used] = 0;
        if (strstr(answer, "\r\n\r\n")) break;
    }
    return strncmp(answer, "HTTP/1.1 101", 12) == 0 ? handle : NULL;
}

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

static long resident_kib(void) {
    long pages = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    if (statm) fclose(statm);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    const char *mode = argv[1], *base = argv[2];
    long count = atol(argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    if (strcmp(mode, "open") == 0) {
        struct rlimit limit = {65536, 65536};
        setrlimit(RLIMIT_NOFILE, &limit);
        long before = resident_kib();
        CURL **handles = calloc((size_t)count, sizeof *handles);
        unsigned char **buffers = calloc((size_t)count, sizeof *buffers);
        for (long i = 0; i < count; i++) {
            handles[i] = open_socket(base);
            buffers[i] = malloc(1024);
            if (!handles[i]) { fprintf(stderr, "socket %ld did not open\n", i); return 1; }
        }
        printf("%.1f\n", (double)(resident_kib() - before) / (double)count);
        for (long i = 0; i < count; i++) { curl_easy_cleanup(handles[i]); free(buffers[i]); }
        return 0;
    }
    CURL *handle = open_socket(base);
    if (!handle) return 1;
    size_t size = strcmp(mode, "echo-1m") == 0 ? 1 << 20 : 5;
    unsigned char *payload = malloc(size), *frame = malloc(size + 14), *reply = malloc(size);
    for (size_t i = 0; i < size; i++) payload[i] = (unsigned char)(i * 31);
    int opcode = size == 5 ? 0x1 : 0x2;
    if (size == 5) memcpy(payload, "hello", 5);
    double start = now();
    for (long i = 0; i < count; i++) {
        size_t length = masked_frame(opcode, payload, size, frame);
        if (send_all(handle, frame, length) != 0 || read_frame(handle, reply, size) != (long)size) return 1;
    }
    double elapsed = now() - start;
    printf("%.1f\n", size == 5 ? count / elapsed : count / elapsed);
    curl_easy_cleanup(handle);
    return 0;
}
