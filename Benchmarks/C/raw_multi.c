// The ceiling for Connect: the same requests with libcurl's multi interface in plain C, one thread.
// usage: raw_multi URL TOTAL INFLIGHT [post|file|h2c|https]
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include "benchmark_request.h"

typedef Buffer Transfer;

static void set_up(CURL *easy, Transfer *buffer) {
    (void)easy, (void)buffer;
}

static void start(CURLM *multi, CURL *easy, const char *url, Transfer *buffer) {
    prepare_request(easy, url, buffer);
    curl_multi_add_handle(multi, easy);
}

static int finish(CURL *easy, Transfer *buffer, CURLcode code) {
    (void)buffer;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    return code == CURLE_OK && status == 200;
}

#include "one_thread.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT [post|file|h2c|https]\n", argv[0]);
        return 2;
    }
    choose_method(argc > 4 ? argv[4] : NULL);
    return one_thread_main(argv[1], atol(argv[2]), atol(argv[3]));
}
