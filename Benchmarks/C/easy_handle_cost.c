// What a fresh easy handle per transfer costs next to reusing one: `curl_easy_init`, the options
// every Connect transfer shares, and `curl_easy_cleanup`, against `curl_easy_reset` and the same
// options, and against `curl_easy_duphandle` of a configured handle. Connect takes a fresh handle
// per transfer on libcurl 7.83 to 8.0 (see LibcurlDefects). Run under callgrind and subtract a
// run with 0 handles:
//
//   gcc -O2 easy_handle_cost.c -o easy_handle_cost -lcurl
//   valgrind --tool=callgrind ./easy_handle_cost MODE COUNT   (MODE 0 fresh, 1 duplicate, 2 reset)
#include <curl/curl.h>
#include <stdlib.h>

static size_t discard(char *buffer, size_t size, size_t count, void *context) {
    (void)buffer;
    (void)context;
    return size * count;
}

static void set_shared_options(CURL *handle) {
    static char errors[CURL_ERROR_SIZE];
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errors);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, discard);
    curl_easy_setopt(handle, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(handle, CURLOPT_PROXY, "");
    curl_easy_setopt(handle, CURLOPT_NOPROXY, "");
    curl_easy_setopt(handle, CURLOPT_PRIVATE, (void *)1);
}

int main(int argc, char **argv) {
    curl_global_init(CURL_GLOBAL_ALL);
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    int count = argc > 2 ? atoi(argv[2]) : 1000;
    CURL *kept = curl_easy_init();
    set_shared_options(kept);
    for (int index = 0; index < count; index++) {
        if (mode == 2) {
            curl_easy_reset(kept);
            set_shared_options(kept);
            continue;
        }
        CURL *handle = mode == 1 ? curl_easy_duphandle(kept) : curl_easy_init();
        if (mode == 0) set_shared_options(handle);
        curl_easy_cleanup(handle);
    }
    curl_easy_cleanup(kept);
    curl_global_cleanup();
    return 0;
}
