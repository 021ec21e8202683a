// Connect's threading design in plain C, hand-off included: the GETs of raw_multi.c, one thread
// driving libcurl's multi handle (blocked in curl_multi_poll, woken with curl_multi_wakeup), and
// finished transfers handed to a serial libdispatch queue, as Connect's default callback queue
// receives them: a drain block is queued only when none is queued or running, and it completes
// every batch waiting. The drain starts the next request from there, as a Connect observer does.
// two_thread_multi.c is the same with a condition variable and a thread of its own instead of
// libdispatch: the difference between the two is what libdispatch's hand-off costs.
// usage: dispatch_multi URL TOTAL INFLIGHT [post|file]
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include <pthread.h>
#include <stdio.h>
#include <dispatch/dispatch.h>

#include "benchmark_request.h"

/// A fixed-size queue of easy handles, guarded by `lock`.
typedef struct {
    CURL **handles;
    long count, capacity;
} Queue;

static const char *url;
static CURLM *multi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dispatch_queue_t callbacks;
static int draining = 0;  // a drain is queued or running; guarded by `lock`
static void drain(void *unused);
static Queue to_start, finished;  // callback thread -> transfer thread, and back
static int stopping = 0;

static void push(Queue *queue, CURL *easy) {
    queue->handles[queue->count++] = easy;
}

/// The transfer thread: starts what the callback thread queued, runs the transfers, and hands
/// finished ones back, waking the callback thread once per batch.
static void *transfer_thread(void *unused) {
    (void)unused;
    CURL **starting = calloc(to_start.capacity, sizeof(CURL *));
    for (;;) {
        pthread_mutex_lock(&lock);
        long count = to_start.count;
        memcpy(starting, to_start.handles, count * sizeof(CURL *));
        to_start.count = 0;
        int stop = stopping;
        pthread_mutex_unlock(&lock);
        if (stop) break;
        for (long i = 0; i < count; i++) curl_multi_add_handle(multi, starting[i]);

        int running;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left, handed = 0;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            Buffer *buffer;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&buffer);
            buffer->result = message->data.result;
            curl_multi_remove_handle(multi, easy);
            pthread_mutex_lock(&lock);
            push(&finished, easy);
            if (!draining) draining = handed = 1;
            pthread_mutex_unlock(&lock);
        }
        if (handed) dispatch_async_f(callbacks, NULL, drain);
        curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    free(starting);
    return NULL;
}

/// Queues `easy` for the transfer thread and wakes it.
static void submit(CURL *easy) {
    pthread_mutex_lock(&lock);
    push(&to_start, easy);
    pthread_mutex_unlock(&lock);
    curl_multi_wakeup(multi);
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
            CURL *easy = batch[i];
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            Buffer *buffer;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&buffer);
            if (buffer->result != CURLE_OK || status != 200) run_failed++;
            run_done++;
            if (run_started < run_total) {
                run_started++;
                prepare_request(easy, url, buffer);
                submit(easy);
            }
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
    for (long i = 0; i < first->inflight && run_started < run_total; i++, run_started++) {
        prepare_request(first->handles[i], url, &first->buffers[i]);
        submit(first->handles[i]);
    }
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

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT [post|file]\n", argv[0]);
        return 2;
    }
    url = argv[1];
    long total = atol(argv[2]), inflight = atol(argv[3]);
    choose_method(argc > 4 ? argv[4] : NULL);
    curl_global_init(CURL_GLOBAL_ALL);
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, inflight < 16 ? 16 : inflight);
    to_start = (Queue){calloc(inflight, sizeof(CURL *)), 0, inflight};
    finished = (Queue){calloc(inflight, sizeof(CURL *)), 0, inflight};
    CURL **handles = calloc(inflight, sizeof(CURL *));
    Buffer *buffers = calloc(inflight, sizeof(Buffer));
    batch = calloc(inflight, sizeof(CURL *));
    callbacks = dispatch_queue_create("callbacks", NULL);
    run_finished = dispatch_semaphore_create(0);
    for (long i = 0; i < inflight; i++) handles[i] = curl_easy_init();
    pthread_t thread;
    pthread_create(&thread, NULL, transfer_thread, NULL);

    // Warm up as the Swift benchmark does: open the connections once.
    run(inflight * 4 < total ? inflight * 4 : total, inflight, handles, buffers);
    double cpu0 = cpu_seconds(), t0 = now();
    long failed = run(total, inflight, handles, buffers);
    double elapsed = now() - t0, cpu = cpu_seconds() - cpu0;
    printf("%ld %.4f %.1f %.2f %ld\n", total, elapsed, total / elapsed, cpu / total * 1e6, failed);

    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_mutex_unlock(&lock);
    curl_multi_wakeup(multi);
    pthread_join(thread, NULL);
    return failed ? 1 : 0;
}
