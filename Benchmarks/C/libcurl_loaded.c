// A floor for `make bench-memory`: a program that loads libcurl (and so every library the
// system's libcurl links), initialises it and makes a multi and an easy handle, then exits
// without a request. Its peak memory is what any client of this libcurl pays before its own.
#include <curl/curl.h>
#include <stdio.h>

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    CURL *easy = curl_easy_init();
    curl_multi_add_handle(multi, easy);
    printf("%p %p\n", (void *)multi, (void *)easy);
    curl_multi_remove_handle(multi, easy);
    curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return 0;
}
