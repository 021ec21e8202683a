// The loop of the one-thread C clients (raw_multi.c, footprint_multi.c, checked_multi.c): one
// thread drives libcurl's multi handle, reads each finished transfer and starts the next request
// on its handle.
// The clients differ in how a request is set up and a finished one read, which each defines
// before including this (after benchmark_request.h):
//   - `typedef ... Transfer;`: what a handle's request keeps, which its CURLOPT_PRIVATE points at;
//   - `static void set_up(CURL *easy, Transfer *transfer)`: once per handle, before the first run;
//   - `static void start(CURLM *multi, CURL *easy, const char *url, Transfer *transfer)`: sets up
//     the next request on `easy` and adds it to `multi`;
//   - `static int finish(CURL *easy, Transfer *transfer, CURLcode code)`: reads a finished
//     transfer; returns whether it succeeded.
// `one_thread_main` is the rest of `main`.
#include "benchmark_request.h"

/// Runs TOTAL requests, INFLIGHT at a time, on `handles`; returns the failures.
static long run(CURLM *multi, CURL **handles, Transfer *transfers, const char *url, long total, long inflight) {
    long started = 0, finished = 0, failed = 0;
    for (long i = 0; i < inflight && started < total; i++, started++) {
        start(multi, handles[i], url, &transfers[i]);
    }
    int running = 1;
    while (finished < total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            Transfer *transfer;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&transfer);
            if (!finish(easy, transfer, message->data.result)) failed++;
            curl_multi_remove_handle(multi, easy);
            finished++;
            if (started < total) {
                started++;
                start(multi, easy, url, transfer);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    return failed;
}

/// Warms up, then runs TOTAL requests of URL, INFLIGHT at a time, and prints the line every
/// client prints: requests, seconds, requests/s, CPU microseconds per request, failures.
static int one_thread_main(const char *url, long total, long inflight) {
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, inflight < 16 ? 16 : inflight);
    CURL **handles = calloc(inflight, sizeof(CURL *));
    Transfer *transfers = calloc(inflight, sizeof(Transfer));
    for (long i = 0; i < inflight; i++) {
        handles[i] = curl_easy_init();
        set_up(handles[i], &transfers[i]);
    }

    // Warm up as the other clients do: open the connections once.
    run(multi, handles, transfers, url, inflight * 4 < total ? inflight * 4 : total, inflight);
    double cpu0 = cpu_seconds(), t0 = now();
    long failed = run(multi, handles, transfers, url, total, inflight);
    double elapsed = now() - t0, cpu = cpu_seconds() - cpu0;
    printf("%ld %.4f %.1f %.2f %ld\n", total, elapsed, total / elapsed, cpu / total * 1e6, failed);
    return failed ? 1 : 0;
}
