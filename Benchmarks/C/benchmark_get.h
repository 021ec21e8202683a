// What the C benchmark clients share: the body buffer, the clocks, and the one GET they all send,
// set up in one place so that the clients stay comparable.
#ifndef BENCHMARK_GET_H
#define BENCHMARK_GET_H

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
    char *data;
    size_t length, capacity;
    CURLcode result;  // for clients that finish a transfer on another thread than they read it
} Buffer;

static size_t write_body(char *bytes, size_t size, size_t count, void *context) {
    Buffer *buffer = context;
    size_t n = size * count;
    if (buffer->length + n > buffer->capacity) {
        buffer->capacity = (buffer->length + n) * 2;
        buffer->data = realloc(buffer->data, buffer->capacity);
    }
    memcpy(buffer->data + buffer->length, bytes, n);
    buffer->length += n;
    return n;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

/// Resets `easy` for a GET of `url` into `buffer`, which its CURLOPT_PRIVATE points at.
static void prepare_get(CURL *easy, const char *url, Buffer *buffer) {
    buffer->length = 0;
    curl_easy_reset(easy);
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, buffer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, buffer);
}

#endif
