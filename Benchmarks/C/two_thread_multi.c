// The floor of Connect's threading design, in plain C: the GETs of raw_multi.c, but one thread
// drives libcurl's multi handle (blocked in curl_multi_poll, woken with curl_multi_wakeup) and
// hands each finished transfer to a second thread, which starts the next request from there,
// as a Connect observer does. No Swift, no libdispatch: what two threads cost by themselves.
// usage: two_thread_multi URL TOTAL INFLIGHT [post|file]
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include "transfer_thread.h"

static pthread_cond_t finished_ready = PTHREAD_COND_INITIALIZER;

/// Every finished transfer wakes the callback thread, once per pass of the transfer thread.
static int finished_joined(void) {
    return 1;
}

static void wake_other_side(void) {
    pthread_cond_signal(&finished_ready);
}

static void prepare_other_side(long inflight) {
    (void)inflight;
}

/// Runs TOTAL requests, INFLIGHT at a time, from the calling (callback) thread; returns failures.
static long run(long total, long inflight, CURL **handles, Buffer *buffers) {
    long started = 0, done = 0, failed = 0;
    start_first_requests(total, inflight, handles, buffers, &started);
    CURL **batch = calloc(inflight, sizeof(CURL *));
    while (done < total) {
        pthread_mutex_lock(&lock);
        while (finished.count == 0) pthread_cond_wait(&finished_ready, &lock);
        long count = finished.count;
        memcpy(batch, finished.handles, count * sizeof(CURL *));
        finished.count = 0;
        pthread_mutex_unlock(&lock);
        for (long i = 0; i < count; i++) finish_and_start_next(batch[i], total, &started, &done, &failed);
    }
    free(batch);
    return failed;
}

int main(int argc, char **argv) {
    return transfer_thread_main(argc, argv);
}
