// A typed face for libcurl: `curl_easy_setopt`, `curl_easy_getinfo` and `curl_multi_setopt` are variadic, which
// Swift cannot call, so each argument type gets one small wrapper here.
#ifndef RESTINGKIT_CCURL_H
#define RESTINGKIT_CCURL_H

#include <curl/curl.h>
#ifdef __linux__
#include <sys/epoll.h>  // the socket poller of upgraded connections (Glibc's module leaves it out)
#endif

typedef size_t (*rk_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
typedef int (*rk_seek_callback)(void *userdata, curl_off_t offset, int origin);
typedef int (*rk_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);
typedef int (*rk_trailer_callback)(struct curl_slist **list, void *userdata);
typedef int (*rk_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

CURLcode rk_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode rk_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
/// Strings (copied by libcurl), lists and opaque pointers.
CURLcode rk_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode rk_easy_setopt_data_callback(CURL *handle, CURLoption option, rk_data_callback callback);
CURLcode rk_easy_setopt_progress_callback(CURL *handle, rk_progress_callback callback);
CURLcode rk_easy_setopt_seek_callback(CURL *handle, rk_seek_callback callback);
CURLcode rk_easy_setopt_debug_callback(CURL *handle, rk_debug_callback callback);
/// Sets (or, with NULL, clears) the callback that gives a chunked upload its trailer fields.
CURLcode rk_easy_setopt_trailer_callback(CURL *handle, rk_trailer_callback callback);
/// Sets an in-memory blob option (CURLOPT_CAINFO_BLOB, CURLOPT_SSLCERT_BLOB, ...); libcurl copies the bytes.
CURLcode rk_easy_setopt_blob(CURL *handle, CURLoption option, const void *bytes, size_t length);

CURLcode rk_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode rk_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode rk_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode rk_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

/// The socket of a CURLOPT_CONNECT_ONLY handle's connection (CURLINFO_ACTIVESOCKET), or -1.
int rk_easy_active_socket(CURL *handle);

CURLMcode rk_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// The authentication schemes a proxy's 407 may choose from (CURLAUTH_* are macros Swift cannot import).
static const long rk_proxy_auth_schemes = (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST | CURLAUTH_NTLM | CURLAUTH_NEGOTIATE);

/// What the libcurl this process loaded says of itself (`CURLVERSION_NOW` is a macro Swift cannot import).
const curl_version_info_data *rk_version_info(void);

/// The CURLMsg fields Swift needs, without the union.
int rk_multi_info_read(CURLM *multi, CURL **handle, CURLcode *result);

/// Names the calling thread (15 characters at most on Linux), for debuggers, `top -H` and crash reports.
void rk_name_current_thread(const char *name);

/// Runs `body(context)` on a new detached thread named `name`; 0 on success, else the pthread error number.
/// (Foundation's `Thread` would bring all of Foundation into the process for one call.)
int rk_start_thread(const char *name, void (*body)(void *context), void *context);

#endif
