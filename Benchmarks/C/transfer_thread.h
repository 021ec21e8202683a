// The transfer thread of the two-thread C clients, two_thread_multi.c and dispatch_multi.c: it
// drives libcurl's multi handle (blocked in curl_multi_poll, woken with curl_multi_wakeup),
// starts what the other side submits and hands each finished transfer back. The clients differ
// only in that other side, which each defines:
//   - `static int finished_joined(void)`: called under `lock` after a finished transfer joined
//     `finished`; returns 1 when the other side must be woken once this pass has handed over;
//   - `static void wake_other_side(void)`: wakes it, outside the lock;
//   - `static void prepare_other_side(long inflight)`: sets it up, before the first run;
//   - `static long run(long total, long inflight, CURL **handles, Buffer *buffers)`: runs TOTAL
//     requests, INFLIGHT at a time, started from the other side with `submit`; returns the
//     failures.
// `transfer_thread_main` is the rest of `main`.
#include <pthread.h>
#include <stdio.h>

#include "benchmark_request.h"

/// A fixed-size queue of easy handles, guarded by `lock`.
typedef struct {
    CURL **handles;
    long count, capacity;
} Queue;

static const char *url;
static CURLM *multi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Queue to_start, finished;  // the other side -> the transfer thread, and back
static int stopping = 0;

static int finished_joined(void);
static void wake_other_side(void);
static void prepare_other_side(long inflight);
static long run(long total, long inflight, CURL **handles, Buffer *buffers);

static void push(Queue *queue, CURL *easy) {
    queue->handles[queue->count++] = easy;
}

/// The transfer thread: starts what the other side queued, runs the transfers, and hands
/// finished ones back, waking the other side at most once per pass.
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
        int left, wake = 0;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            Buffer *buffer;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&buffer);
            buffer->result = message->data.result;
            curl_multi_remove_handle(multi, easy);
            pthread_mutex_lock(&lock);
            push(&finished, easy);
            if (finished_joined()) wake = 1;
            pthread_mutex_unlock(&lock);
        }
        if (wake) wake_other_side();
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

/// The other side's start of a run: the first INFLIGHT requests (at most TOTAL), counted in
/// `started`.
static void start_first_requests(long total, long inflight, CURL **handles, Buffer *buffers, long *started) {
    for (long i = 0; i < inflight && *started < total; i++, (*started)++) {
        prepare_request(handles[i], url, &buffers[i]);
        submit(handles[i]);
    }
}

/// The other side's work for one finished transfer: counts it, and its failure, and starts the
/// run's next request on the same handle while any are left.
static void finish_and_start_next(CURL *easy, long total, long *started, long *done, long *failed) {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    Buffer *buffer;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&buffer);
    if (buffer->result != CURLE_OK || status != 200) (*failed)++;
    (*done)++;
    if (*started < total) {
        (*started)++;
        prepare_request(easy, url, buffer);
        submit(easy);
    }
}

/// `main`: a warm-up run, then the measured one, printed as "requests seconds requests/s
/// CPU-µs/request failures".
static int transfer_thread_main(int argc, char **argv) {
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
    for (long i = 0; i < inflight; i++) handles[i] = curl_easy_init();
    prepare_other_side(inflight);
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
