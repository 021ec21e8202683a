// The ceiling for Connect: the same requests with libcurl's multi interface in plain C, one thread.
// usage: raw_multi URL TOTAL INFLIGHT [post|post-encode|file|h2c|https|h3]
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include "raw_transfer.h"
#include "one_thread.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT [post|post-encode|file|h2c|https|h3]\n", argv[0]);
        return 2;
    }
    choose_method(argc > 4 ? argv[4] : NULL);
    return one_thread_main(argv[1], atol(argv[2]), atol(argv[3]));
}
