// The WebSocket benchmark's server: RFC 6455 echo on loopback, one epoll thread over non-blocking sockets with
// TCP_NODELAY, so that the clients — not the server — set the pace, and ten thousand idle sockets cost it little.
// Answers the handshake (SHA-1 from OpenSSL's libcrypto), echoes each frame's payload back unmasked with its opcode,
// answers a ping with a pong and a close frame with a close frame. Prints "ws_echo_server listening on
// http://127.0.0.1:PORT", then serves until stdin closes.
//   ws_echo_server
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/// One connection: bytes read and not yet framed, bytes still to write.
struct connection {
    int fd;
    int upgraded;
    unsigned char *in, *out;
    size_t in_used, in_capacity, out_used, out_capacity, out_sent;
};

static void reserve(unsigned char **buffer, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return;
    size_t grown = *capacity ? *capacity : 4096;
    while (grown < needed) grown *= 2;
    *buffer = realloc(*buffer, grown);
    *capacity = grown;
}

static void queue(struct connection *connection, const void *bytes, size_t count) {
    reserve(&connection->out, &connection->out_capacity, connection->out_used + count);
    memcpy(connection->out + connection->out_used, bytes, count);
    connection->out_used += count;
}

/// Answers the handshake once its head is whole: 0 while it is not, -1 for a bad one.
static int answer_handshake(struct connection *connection) {
    connection->in[connection->in_used] = 0;
    char *end = strstr((char *)connection->in, "\r\n\r\n");
    if (!end) return connection->in_used > 8000 ? -1 : 0;
    char *key = strcasestr((char *)connection->in, "Sec-WebSocket-Key:");
    if (!key) return -1;
    key += strlen("Sec-WebSocket-Key:");
    while (*key == ' ') key++;
    size_t length = strcspn(key, "\r\n");
    if (length > 60) return -1;
    char material[128];
    snprintf(material, sizeof material, "%.*s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", (int)length, key);
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1((unsigned char *)material, strlen(material), digest);
    unsigned char accept[64];
    EVP_EncodeBlock(accept, digest, SHA_DIGEST_LENGTH);
    char answer[256];
    int size = snprintf(answer, sizeof answer,
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
    queue(connection, answer, (size_t)size);
    size_t consumed = (size_t)(end + 4 - (char *)connection->in);
    memmove(connection->in, connection->in + consumed, connection->in_used - consumed);
    connection->in_used -= consumed;
    connection->upgraded = 1;
    return 1;
}

/// Echoes every whole frame read so far: -1 once a close frame was echoed.
static int echo_frames(struct connection *connection) {
    size_t at = 0;
    int closing = 0;
    while (!closing) {
        unsigned char *head = connection->in + at;
        size_t available = connection->in_used - at, header = 2;
        if (available < 2) break;
        uint64_t length = head[1] & 0x7F;
        if (length == 126) {
            header = 4;
            if (available < header) break;
            length = ((uint64_t)head[2] << 8) | head[3];
        } else if (length == 127) {
            header = 10;
            if (available < header) break;
            length = 0;
            for (int i = 2; i < 10; i++) length = (length << 8) | head[i];
        }
        size_t mask_length = (head[1] & 0x80) ? 4 : 0;
        if (available < header + mask_length + length) break;
        unsigned char *mask = head + header, *payload = head + header + mask_length;
        for (uint64_t i = 0; mask_length && i < length; i++) payload[i] ^= mask[i % 4];
        int opcode = head[0] & 0x0F;
        unsigned char out[10];
        size_t out_length = 2;
        out[0] = (unsigned char)(0x80 | (opcode == 0x9 ? 0xA : opcode));
        if (length < 126) {
            out[1] = (unsigned char)length;
        } else if (length < 65536) {
            out[1] = 126;
            out[2] = (unsigned char)(length >> 8);
            out[3] = (unsigned char)length;
            out_length = 4;
        } else {
            out[1] = 127;
            for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)(length >> (56 - 8 * i));
            out_length = 10;
        }
        queue(connection, out, out_length);
        queue(connection, payload, length);
        at += header + mask_length + length;
        closing = opcode == 0x8;
    }
    memmove(connection->in, connection->in + at, connection->in_used - at);
    connection->in_used -= at;
    return closing ? -1 : 0;
}

/// Writes what is queued: 1 once all of it went, 0 while the socket is full, -1 on an error.
static int flush(struct connection *connection) {
    while (connection->out_sent < connection->out_used) {
        ssize_t sent = write(connection->fd, connection->out + connection->out_sent,
                             connection->out_used - connection->out_sent);
        if (sent < 0) return errno == EAGAIN ? 0 : -1;
        connection->out_sent += (size_t)sent;
    }
    connection->out_sent = connection->out_used = 0;
    return 1;
}

static void drop(int epoll, struct connection *connection) {
    epoll_ctl(epoll, EPOLL_CTL_DEL, connection->fd, NULL);
    close(connection->fd);
    free(connection->in);
    free(connection->out);
    free(connection);
}

static void serve_ready(int epoll, struct connection *connection) {
    int failed = 0;
    for (;;) {
        reserve(&connection->in, &connection->in_capacity, connection->in_used + 65536 + 1);
        ssize_t got = read(connection->fd, connection->in + connection->in_used, 65536);
        if (got == 0 || (got < 0 && errno != EAGAIN)) { failed = 1; break; }
        if (got < 0) break;
        connection->in_used += (size_t)got;
    }
    if (!failed && !connection->upgraded && answer_handshake(connection) < 0) failed = 1;
    if (!failed && connection->upgraded && echo_frames(connection) < 0) {
        flush(connection);
        failed = 1;
    }
    int flushed = failed ? -1 : flush(connection);
    if (flushed < 0) return drop(epoll, connection);
    struct epoll_event changed = {.events = EPOLLIN | (flushed ? 0 : EPOLLOUT), .data.ptr = connection};
    epoll_ctl(epoll, EPOLL_CTL_MOD, connection->fd, &changed);
}

static void *serve(void *argument) {
    int listener = (int)(intptr_t)argument;
    int epoll = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event events[256];
    for (;;) {
        int count = epoll_wait(epoll, events, 256, -1);
        for (int i = 0; i < count; i++) {
            struct connection *connection = events[i].data.ptr;
            if (connection) {
                serve_ready(epoll, connection);
                continue;
            }
            int fd;
            while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                connection = calloc(1, sizeof *connection);
                connection->fd = fd;
                struct epoll_event added = {.events = EPOLLIN, .data.ptr = connection};
                epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &added);
            }
        }
    }
    return NULL;
}

int main(void) {
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 4096) != 0) return 1;
    socklen_t size = sizeof address;
    getsockname(listener, (struct sockaddr *)&address, &size);
    fcntl(listener, F_SETFL, O_NONBLOCK);
    printf("ws_echo_server listening on http://127.0.0.1:%d\n", ntohs(address.sin_port));
    fflush(stdout);
    pthread_t thread;
    pthread_create(&thread, NULL, serve, (void *)(intptr_t)listener);
    char sink[256];
    while (fread(sink, 1, sizeof sink, stdin) > 0) {}
    return 0;
}
