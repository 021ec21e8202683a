// raw_multi.c's request: what a handle keeps, how a request starts and how a finished one is read,
// for one_thread.h. A client that includes it may define AFTER_RESPONSE() first: code run after
// each response, before it is read (footprint_multi.c's spread-out functions).
#include "benchmark_request.h"

#ifndef AFTER_RESPONSE
#define AFTER_RESPONSE()
#endif

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
    AFTER_RESPONSE();
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    return code == CURLE_OK && status == 200;
}
