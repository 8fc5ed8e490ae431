#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "CCurl.h"

CURLcode rk_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode rk_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode rk_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode rk_easy_setopt_data_callback(CURL *handle, CURLoption option, rk_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode rk_easy_setopt_progress_callback(CURL *handle, rk_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode rk_easy_setopt_seek_callback(CURL *handle, rk_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

CURLcode rk_easy_setopt_debug_callback(CURL *handle, rk_debug_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}

CURLcode rk_easy_setopt_trailer_callback(CURL *handle, rk_trailer_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_TRAILERFUNCTION, callback);
}

CURLcode rk_easy_setopt_blob(CURL *handle, CURLoption option, const void *bytes, size_t length) {
    struct curl_blob blob = {(void *)bytes, length, CURL_BLOB_COPY};
    return curl_easy_setopt(handle, option, &blob);
}

CURLcode rk_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode rk_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode rk_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode rk_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

int rk_easy_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK || socket == CURL_SOCKET_BAD) return -1;
    return (int)socket;
}

CURLMcode rk_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

int rk_multi_info_read(CURLM *multi, CURL **handle, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *handle = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

void rk_name_current_thread(const char *name) {
#if defined(__APPLE__)
    pthread_setname_np(name);
#else
    pthread_setname_np(pthread_self(), name);
#endif
}

struct rk_thread_start {
    char name[16];
    void (*body)(void *context);
    void *context;
};

static void *rk_thread_main(void *argument) {
    struct rk_thread_start start = *(struct rk_thread_start *)argument;
    free(argument);
    rk_name_current_thread(start.name);
    start.body(start.context);
    return NULL;
}

int rk_start_thread(const char *name, void (*body)(void *context), void *context) {
    struct rk_thread_start *start = malloc(sizeof *start);
    if (start == NULL) return ENOMEM;
    snprintf(start->name, sizeof start->name, "%s", name);
    start->body = body;
    start->context = context;
    pthread_t thread;
    int error = pthread_create(&thread, NULL, rk_thread_main, start);
    if (error != 0) {
        free(start);
        return error;
    }
    pthread_detach(thread);
    return 0;
}

// OpenSSL (1.1.1b and later), unless told otherwise by the first call that initialises it, frees its state in an
// exit handler, while other threads may still be in it: a driver closing its connections as the process exits then
// takes a freed lock and crashes it (a segmentation fault, or "double free" from malloc). Freeing at exit is optional
// (the system takes the memory back), so the first initialisation, made here as this binary loads — before main, and
// so before libcurl or FoundationNetworking initialise OpenSSL themselves — declines it. Where libcurl uses another
// TLS library, OpenSSL is not loaded and this does nothing.
#define RK_OPENSSL_INIT_NO_ATEXIT 0x00080000L

__attribute__((constructor)) static void rk_keep_openssl_at_exit(void) {
    int (*init_crypto)(uint64_t options, const void *settings) =
        (int (*)(uint64_t, const void *))dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    if (init_crypto != NULL) init_crypto(RK_OPENSSL_INIT_NO_ATEXIT, NULL);
}

const curl_version_info_data *rk_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
