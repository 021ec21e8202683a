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
//
// Defined before including this, `DRIVES_SOCKET_ACTION` drives libcurl with
// `curl_multi_socket_action` and the client's own poll(2) over the sockets libcurl names, as
// Connect's loop does, instead of `curl_multi_perform` and `curl_multi_poll`: libcurl then runs
// only the transfers whose socket is ready or whose timer is due.
#include "benchmark_request.h"

#ifdef DRIVES_SOCKET_ACTION
#include <poll.h>

/// The sockets libcurl waits on and its timer, as its callbacks report them.
static struct {
    struct pollfd sockets[1024];
    int count;
    int timer_runs;
    double deadline;
} watch;

static int on_socket(CURL *easy, curl_socket_t socket, int what, void *context, void *socket_context) {
    (void)easy, (void)context, (void)socket_context;
    int i = 0;
    while (i < watch.count && watch.sockets[i].fd != socket) i++;
    if (what == CURL_POLL_REMOVE) {
        if (i < watch.count) watch.sockets[i] = watch.sockets[--watch.count];
        return 0;
    }
    if (i == watch.count) {
        if (watch.count == 1024) return -1;
        watch.sockets[watch.count++].fd = socket;
    }
    watch.sockets[i].events = (what & CURL_POLL_IN ? POLLIN : 0) | (what & CURL_POLL_OUT ? POLLOUT : 0);
    return 0;
}

static int on_timer(CURLM *multi, long milliseconds, void *context) {
    (void)multi, (void)context;
    watch.timer_runs = milliseconds >= 0;
    watch.deadline = now() + milliseconds / 1000.0;
    return 0;
}

/// Sleeps in poll(2) until a socket is ready or the timer is due, then hands libcurl the ready
/// sockets and runs its timer if due.
static void wait_and_act(CURLM *multi) {
    int running, timeout = 1000;
    if (watch.timer_runs) {
        double left = watch.deadline - now();
        timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
    }
    static struct pollfd polled[1024];
    int count = watch.count;
    memcpy(polled, watch.sockets, count * sizeof(struct pollfd));
    if (poll(polled, count, timeout) > 0) {
        for (int i = 0; i < count; i++) {
            short returned = polled[i].revents;
            if (!returned) continue;
            int mask = (returned & (POLLIN | POLLPRI | POLLHUP) ? CURL_CSELECT_IN : 0)
                | (returned & POLLOUT ? CURL_CSELECT_OUT : 0) | (returned & POLLERR ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(multi, polled[i].fd, mask, &running);
        }
    }
    if (watch.timer_runs && watch.deadline <= now()) {
        watch.timer_runs = 0;
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}
#endif

/// Runs TOTAL requests, INFLIGHT at a time, on `handles`; returns the failures.
static long run(CURLM *multi, CURL **handles, Transfer *transfers, const char *url, long total, long inflight) {
    long started = 0, finished = 0, failed = 0;
    for (long i = 0; i < inflight && started < total; i++, started++) {
        start(multi, handles[i], url, &transfers[i]);
    }
    int running = 1;
    while (finished < total) {
#ifdef DRIVES_SOCKET_ACTION
        if (watch.timer_runs && watch.deadline <= now()) {
            watch.timer_runs = 0;
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        }
#else
        curl_multi_perform(multi, &running);
#endif
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
#ifdef DRIVES_SOCKET_ACTION
        if (finished < total) wait_and_act(multi);
#else
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
#endif
    }
    return failed;
}

/// Warms up, then runs TOTAL requests of URL, INFLIGHT at a time, and prints the line every
/// client prints: requests, seconds, requests/s, CPU microseconds per request, failures.
static int one_thread_main(const char *url, long total, long inflight) {
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    // BENCH_IDLE=N with BENCH_IDLE_URL: N requests to a server that never answers stay in flight
    // the whole run, as long polls and event streams do beside an app's requests.
    const char *idle_url = getenv("BENCH_IDLE_URL");
    long idle = idle_url && getenv("BENCH_IDLE") ? atol(getenv("BENCH_IDLE")) : 0;
    long connections = inflight > idle ? inflight : idle;
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, connections < 16 ? 16 : connections + idle);
#ifdef DRIVES_SOCKET_ACTION
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
#endif
    CURL **handles = calloc(inflight, sizeof(CURL *));
    Transfer *transfers = calloc(inflight, sizeof(Transfer));
    for (long i = 0; i < inflight; i++) {
        handles[i] = curl_easy_init();
        set_up(handles[i], &transfers[i]);
    }

    for (long i = 0; i < idle; i++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, idle_url);
        curl_multi_add_handle(multi, easy);
    }

    // Warm up as the other clients do: open the connections once.
    run(multi, handles, transfers, url, inflight * 4 < total ? inflight * 4 : total, inflight);
    double cpu0 = cpu_seconds(), t0 = now();
    long failed = run(multi, handles, transfers, url, total, inflight);
    double elapsed = now() - t0, cpu = cpu_seconds() - cpu0;
    printf("%ld %.4f %.1f %.2f %ld\n", total, elapsed, total / elapsed, cpu / total * 1e6, failed);
    return failed ? 1 : 0;
}
