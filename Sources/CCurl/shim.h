#ifndef CONNECT_CCURL_SHIM_H
#define CONNECT_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these typed
// wrappers pass exactly one argument of the type each option expects.

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_mime(CURL *handle, CURLoption option, curl_mime *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t download_now,
                                       curl_off_t upload_total, curl_off_t upload_now);
typedef int (*ccurl_seek_callback)(void *context, curl_off_t offset, int origin);
typedef void (*ccurl_free_callback)(void *context);

static inline CURLcode ccurl_mime_data_cb(curl_mimepart *part, curl_off_t size, ccurl_data_callback read,
                                          ccurl_seek_callback seek, ccurl_free_callback release, void *context) {
    return curl_mime_data_cb(part, size, read, seek, release, context);
}

static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_progress_callback(CURL *handle, ccurl_progress_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_seek_callback(CURL *handle, ccurl_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// CURLINFO_ACTIVESOCKET writes a curl_socket_t (an int here), not a long or a pointer.
static inline CURLcode ccurl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLSHcode ccurl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value) {
    return curl_share_setopt(handle, option, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// The socket and timer callbacks of a multi handle driven by curl_multi_socket_action.
typedef int (*ccurl_multi_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socket_context);
typedef int (*ccurl_multi_timer_callback)(CURLM *multi, long timeout_ms, void *context);

static inline CURLMcode ccurl_multi_setopt_socket_callback(CURLM *handle, ccurl_multi_socket_callback value) {
    return curl_multi_setopt(handle, CURLMOPT_SOCKETFUNCTION, value);
}

static inline CURLMcode ccurl_multi_setopt_timer_callback(CURLM *handle, ccurl_multi_timer_callback value) {
    return curl_multi_setopt(handle, CURLMOPT_TIMERFUNCTION, value);
}

static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

typedef int (*ccurl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);
typedef int (*ccurl_sockopt_callback)(void *context, curl_socket_t socket, int purpose);
typedef int (*ccurl_closesocket_callback)(void *context, curl_socket_t socket);
typedef int (*ccurl_resolver_start_callback)(void *resolver_state, void *reserved, void *context);

static inline CURLcode ccurl_easy_setopt_prereq_callback(CURL *handle, ccurl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_sockopt_callback(CURL *handle, ccurl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_resolver_start_callback(CURL *handle, ccurl_resolver_start_callback value) {
    return curl_easy_setopt(handle, CURLOPT_RESOLVER_START_FUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_closesocket_callback(CURL *handle, ccurl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

// Opens the socket of every connection libcurl makes (CURLOPT_OPENSOCKETFUNCTION) closed on exec
// and non-blocking: libcurl's own socket(2) leaves it open across exec, so a process the app
// spawns would hold each connection open, and its server would not see it close until that
// process ended. In one call where the flags exist, so no spawn can come between the two.
#include <fcntl.h>
#include <sys/socket.h>

static inline curl_socket_t ccurl_open_socket(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)context;
    (void)purpose;
#if defined(SOCK_CLOEXEC) && defined(SOCK_NONBLOCK)
    return socket(address->family, address->socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, address->protocol);
#else
    curl_socket_t opened = socket(address->family, address->socktype, address->protocol);
    if (opened != CURL_SOCKET_BAD) (void)fcntl(opened, F_SETFD, FD_CLOEXEC);
    return opened;
#endif
}

static inline CURLcode ccurl_easy_setopt_open_socket_closed_on_exec(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, ccurl_open_socket);
}

// The transfer loop's wake-up pipe, both ends non-blocking and closed on exec: in one call where
// pipe2(2) exists (Linux), so that no process spawned meanwhile inherits them; with fcntl(2)
// after pipe(2) elsewhere (macOS has no pipe2). 0 on success, -1 with errno set.
#include <unistd.h>

static inline int ccurl_open_wake_pipe(int ends[2]) {
#if defined(__linux__)
    return pipe2(ends, O_CLOEXEC | O_NONBLOCK);
#else
    if (pipe(ends) != 0) return -1;
    for (int index = 0; index < 2; index++) {
        (void)fcntl(ends[index], F_SETFD, FD_CLOEXEC);
        (void)fcntl(ends[index], F_SETFL, fcntl(ends[index], F_GETFL, 0) | O_NONBLOCK);
    }
    return 0;
#endif
}

// libcurl's process-wide setup, with libcurl's small zeroed and resized blocks served as its
// other small blocks are. glibc before 2.41 serves calloc and realloc from an arena under the
// arena's lock once a process has a second thread, where malloc and free serve a small block
// from the calling thread's own cache: libcurl 7.88 callocs about a dozen small blocks a request
// (one per stored response header, among others) and grows a few buffers with realloc, each a
// lock and an unlock, two atomic operations of some tens of cycles that a one-thread C client
// never pays. Blocks up to the thread cache's largest (1,032 bytes) are taken and resized here
// with malloc, memcpy and free instead; larger ones still go to calloc (which need not touch
// fresh pages) and realloc. The functions are glibc's own, so memory libcurl hands out is freed
// as before; a libcurl another library set up first in the process keeps its own functions.
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>

enum { ccurl_largest_cached_block = 1024 };

static inline void *ccurl_zeroed_allocation(size_t count, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) return NULL;
    if (total > ccurl_largest_cached_block) return calloc(count, size);
    // Through a volatile pointer: the compiler turns malloc then memset of zero into calloc.
    void *(*volatile allocate)(size_t) = malloc;
    void *block = allocate(total);
    if (block != NULL) memset(block, 0, total);
    return block;
}

static inline void *ccurl_resized_allocation(void *block, size_t size) {
    if (block == NULL) return malloc(size);
    if (size == 0 || size > ccurl_largest_cached_block) return realloc(block, size);
    size_t usable = malloc_usable_size(block);
    if (usable >= size) return block;
    void *moved = malloc(size);
    if (moved == NULL) return NULL;  // realloc's contract: the old block stays as it was
    memcpy(moved, block, usable);
    free(block);
    return moved;
}
#endif

static inline CURLcode ccurl_global_init(long flags) {
#if defined(__GLIBC__)
    return curl_global_init_mem(flags, malloc, free, ccurl_resized_allocation, strdup, ccurl_zeroed_allocation);
#else
    return curl_global_init(flags);
#endif
}

static const int ccurl_prereq_ok = CURL_PREREQFUNC_OK;
static const int ccurl_prereq_abort = CURL_PREREQFUNC_ABORT;

/// CURL_WRITEFUNC_PAUSE, CURL_READFUNC_PAUSE and CURLPAUSE_CONT are macros Swift does not import.
static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const size_t ccurl_readfunc_pause = CURL_READFUNC_PAUSE;
static const int ccurl_pause_continue = CURLPAUSE_CONT;

// An enum constant before libcurl 8 (enum CURL_NETRC_OPTION), a long macro since: the same value
// in one type whichever headers Connect is built against.
static const long ccurl_netrc_optional = CURL_NETRC_OPTIONAL;

// Names the calling thread as debuggers and `top -H` show it: Linux takes up to 15 bytes. Swift
// sees neither glibc's pthread_setname_np (a GNU extension) nor prctl (variadic).
#if defined(__APPLE__)
#include <pthread.h>
static inline void ccurl_name_current_thread(const char *name) {
    pthread_setname_np(name);
}
#else
#include <sys/prctl.h>
static inline void ccurl_name_current_thread(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}
#endif

// epoll(7), Linux's readiness set, in poll(2)'s terms: a socket is watched for POLLIN and POLLOUT
// and reported with poll(2)'s revents bits, its descriptor as the event's data. Here rather than
// in Swift: `struct epoll_event` is packed on x86_64.
#if defined(__linux__)
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>

static inline int ccurl_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/// Watches `socket` for `events` (POLLIN, POLLOUT), whether or not it was watched before:
/// `registered` says which to try first, a change (`EPOLL_CTL_MOD`) or an addition; 0 on
/// success, -1 with errno set.
static inline int ccurl_epoll_watch(int epoll, int socket, short events, int registered) {
    struct epoll_event event = {0};
    event.events = (events & POLLIN ? EPOLLIN : 0) | (events & POLLOUT ? EPOLLOUT : 0);
    event.data.fd = socket;
    if (epoll_ctl(epoll, registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket, &event) == 0) return 0;
    if (errno != (registered ? ENOENT : EEXIST)) return -1;
    return epoll_ctl(epoll, registered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, socket, &event);
}

/// Stops watching `socket`; a socket already closed has left the set by itself.
static inline void ccurl_epoll_forget(int epoll, int socket) {
    struct epoll_event unused = {0};
    (void)epoll_ctl(epoll, EPOLL_CTL_DEL, socket, &unused);
}

/// Waits up to `timeout` milliseconds (0: not at all) for watched sockets to be ready and writes
/// up to `capacity` of them (at most 256) to `ready`, fd and revents; returns how many, or -1.
static inline int ccurl_epoll_wait(int epoll, struct pollfd *ready, int capacity, int timeout) {
    struct epoll_event events[256];
    int count = epoll_wait(epoll, events, capacity < 256 ? capacity : 256, timeout);
    for (int i = 0; i < count; i++) {
        unsigned int returned = events[i].events;
        ready[i].fd = events[i].data.fd;
        ready[i].events = 0;
        ready[i].revents = (short)((returned & EPOLLIN ? POLLIN : 0) | (returned & EPOLLOUT ? POLLOUT : 0)
            | (returned & EPOLLPRI ? POLLPRI : 0) | (returned & EPOLLERR ? POLLERR : 0)
            | (returned & EPOLLHUP ? POLLHUP : 0));
    }
    return count;
}
#endif

// The version of the libcurl the process runs on (0xXXYYZZ), which may be newer than the headers
// it was built with.
static inline unsigned int ccurl_running_version(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}

/// Whether the libcurl this process runs on speaks HTTP/3 (built with ngtcp2 or quiche).
static inline int ccurl_running_has_http3(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_HTTP3) != 0;
}

#if LIBCURL_VERSION_NUM >= 0x075300
// Weak: a libcurl older than 7.83 under an app built with newer headers lacks it.
#if defined(__APPLE__)
extern CURLHcode curl_easy_header(CURL *easy, const char *name, size_t index, unsigned int origin, int request,
                                  struct curl_header **hout) __attribute__((weak_import));
#else
#pragma weak curl_easy_header
#endif
#endif

// Whether the response head `handle` is reading came with an HTTP/2 (or HTTP/3) `:status`
// pseudo-header: libcurl stores one only for a head it decoded from HTTP/2 frames, so a status
// line that says "HTTP/2" without one was read from an HTTP/1 connection. 1 or 0; -1 when this
// libcurl has no headers API (before 7.83) to tell.
static inline int ccurl_head_has_pseudo_status(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075300
    if (!curl_easy_header) return -1;
    struct curl_header *header = NULL;
    return curl_easy_header(handle, ":status", 0, CURLH_PSEUDO, -1, &header) == CURLHE_OK ? 1 : 0;
#else
    (void)handle;
    return -1;
#endif
}

#endif
