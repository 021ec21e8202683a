// Connect's threading design in plain C, hand-off included: the GETs of raw_multi.c, one thread
// driving libcurl's multi handle (blocked in curl_multi_poll, woken with curl_multi_wakeup), and
// finished transfers handed to a serial libdispatch queue, as Connect's default callback queue
// receives them: a drain block is queued only when none is queued or running, and it completes
// every batch waiting. The drain starts the next request from there, as a Connect observer does.
// two_thread_multi.c is the same with a condition variable and a thread of its own instead of
// libdispatch: the difference between the two is what libdispatch's hand-off costs.
// usage: dispatch_multi URL TOTAL INFLIGHT [post|file]
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include <dispatch/dispatch.h>

#include "transfer_thread.h"

static dispatch_queue_t callbacks;
static int draining = 0;  // a drain is queued or running; guarded by `lock`
static void drain(void *unused);

/// A finished transfer queues a drain on the callback queue unless one is queued or running.
static int finished_joined(void) {
    if (draining) return 0;
    draining = 1;
    return 1;
}

static void wake_other_side(void) {
    dispatch_async_f(callbacks, NULL, drain);
}

/// The run in progress: touched only on the callback queue, once `run` has set them.
static long run_total, run_started, run_done, run_failed;
static CURL **batch;
static dispatch_semaphore_t run_finished;

/// On the callback queue: completes every batch waiting, starting the next requests.
static void drain(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        long count = finished.count;
        memcpy(batch, finished.handles, count * sizeof(CURL *));
        finished.count = 0;
        if (count == 0) draining = 0;
        pthread_mutex_unlock(&lock);
        if (count == 0) return;
        for (long i = 0; i < count; i++) {
            finish_and_start_next(batch[i], run_total, &run_started, &run_done, &run_failed);
            if (run_done == run_total) dispatch_semaphore_signal(run_finished);
        }
    }
}

/// What the first requests of a run need, for `start_run` on the callback queue.
typedef struct {
    long inflight;
    CURL **handles;
    Buffer *buffers;
} FirstRequests;

/// On the callback queue, so that nothing else touches the run's counters meanwhile.
static void start_run(void *context) {
    FirstRequests *first = context;
    start_first_requests(run_total, first->inflight, first->handles, first->buffers, &run_started);
}

/// Runs TOTAL requests, INFLIGHT at a time, all started on the callback queue; returns failures.
static long run(long total, long inflight, CURL **handles, Buffer *buffers) {
    FirstRequests first = {inflight, handles, buffers};
    run_total = total;
    run_started = run_done = run_failed = 0;
    dispatch_sync_f(callbacks, &first, start_run);
    dispatch_semaphore_wait(run_finished, DISPATCH_TIME_FOREVER);
    return run_failed;
}

static void prepare_other_side(long inflight) {
    batch = calloc(inflight, sizeof(CURL *));
    callbacks = dispatch_queue_create("callbacks", NULL);
    run_finished = dispatch_semaphore_create(0);
}

int main(int argc, char **argv) {
    return transfer_thread_main(argc, argv);
}
