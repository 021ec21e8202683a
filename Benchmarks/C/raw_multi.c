// The ceiling for Connect: the same requests with libcurl's multi interface in plain C, one thread.
// usage: raw_multi URL TOTAL INFLIGHT [post|file]
// Prints: requests, seconds, requests/s, CPU microseconds per request.
#include <stdio.h>

#include "benchmark_request.h"

static void start(CURLM *multi, CURL *easy, const char *url, Buffer *buffer) {
    prepare_request(easy, url, buffer);
    curl_multi_add_handle(multi, easy);
}

/// Runs TOTAL requests, INFLIGHT at a time, on `handles`; returns the failures.
static long run(CURLM *multi, CURL **handles, Buffer *buffers, const char *url, long total, long inflight) {
    long started = 0, finished = 0, failed = 0;
    for (long i = 0; i < inflight && started < total; i++, started++) {
        start(multi, handles[i], url, &buffers[i]);
    }
    int running = 1;
    while (finished < total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result != CURLE_OK || status != 200) failed++;
            Buffer *buffer;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&buffer);
            curl_multi_remove_handle(multi, easy);
            finished++;
            if (started < total) {
                started++;
                start(multi, easy, url, buffer);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    return failed;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT [post|file]\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    long total = atol(argv[2]), inflight = atol(argv[3]);
    choose_method(argc > 4 ? argv[4] : NULL);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, inflight < 16 ? 16 : inflight);
    CURL **handles = calloc(inflight, sizeof(CURL *));
    Buffer *buffers = calloc(inflight, sizeof(Buffer));
    for (long i = 0; i < inflight; i++) handles[i] = curl_easy_init();

    // Warm up as the other two clients do: open the connections once.
    run(multi, handles, buffers, url, inflight * 4 < total ? inflight * 4 : total, inflight);
    double cpu0 = cpu_seconds(), t0 = now();
    long failed = run(multi, handles, buffers, url, total, inflight);
    double elapsed = now() - t0, cpu = cpu_seconds() - cpu0;
    printf("%ld %.4f %.1f %.2f %ld\n", total, elapsed, total / elapsed, cpu / total * 1e6, failed);
    return failed ? 1 : 0;
}
