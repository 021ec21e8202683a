// What the C benchmark clients share: the body buffer, the clocks, and the one request they all
// send (a GET, or a POST of a 1 KiB JSON body like Connect's), set up in one place so that the
// clients stay comparable.
#ifndef BENCHMARK_REQUEST_H
#define BENCHMARK_REQUEST_H

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct Buffer {
    char *data;
    size_t length, capacity;
    CURLcode result;  // for clients that finish a transfer on another thread than they read it
    FILE *file;       // in "file" mode, where the body goes instead
    char *request_body;  // in "post-encode" mode, this handle's POST body, encoded for each request
} Buffer;

static size_t write_body(char *bytes, size_t size, size_t count, void *context) {
    Buffer *buffer = context;
    size_t n = size * count;
    if (buffer->length + n > buffer->capacity) {
        buffer->capacity = (buffer->length + n) * 2;
        buffer->data = realloc(buffer->data, buffer->capacity);
    }
    memcpy(buffer->data + buffer->length, bytes, n);
    buffer->length += n;
    return n;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static size_t write_file(char *bytes, size_t size, size_t count, void *context) {
    Buffer *buffer = context;
    return fwrite(bytes, size, count, buffer->file) * size;
}

/// In "file" mode, the folder each handle's body file goes in (BENCH_DIR), as a download does.
static const char *file_folder = NULL;
static int files_opened = 0;

/// The POST body, or NULL for GETs: 22 to-do items as compact JSON, the document
/// HTTPBenchmark encodes with JSONEncoder for each of its POSTs.
static char *post_body = NULL;
static struct curl_slist *post_headers = NULL;

/// "post-encode": the same POSTs, each body encoded again for its request from the items'
/// values, as an HTTP client encodes what its caller hands it (Connect's `JSONWritable`), with
/// each string checked for characters JSON must escape.
static int encodes_per_request = 0;
typedef struct Item {
    int id;
    char title[16];
    int done;
} Item;
static Item items[22];

/// Writes `text` as a JSON string at `out`; returns the bytes written.
static size_t write_json_string(char *out, const char *text) {
    char *start = out;
    *out++ = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') {
            *out++ = '\\';
            *out++ = (char)*c;
        } else if (*c < 0x20) {
            out += sprintf(out, "\\u%04x", *c);
        } else {
            *out++ = (char)*c;
        }
    }
    *out++ = '"';
    return (size_t)(out - start);
}

/// Encodes the items as a POST body at `out` (2048 bytes).
static void encode_items(char *out) {
    *out++ = '[';
    for (int i = 0; i < 22; i++) {
        if (i) *out++ = ',';
        out += sprintf(out, "{\"id\":%d,\"title\":", items[i].id);
        out += write_json_string(out, items[i].title);
        out += sprintf(out, ",\"done\":%s}", items[i].done ? "true" : "false");
    }
    *out++ = ']';
    *out = 0;
}

/// "h2c": HTTP/2 with prior knowledge on cleartext. libcurl 7.88 breaks a connection it
/// reuses with prior knowledge (curl issue 10634), so only the first request asks for it and
/// the others ask for HTTP/2 on the connection it opened, as Connect does; nginx never closes
/// it during a run.
static int h2c = 0, h2c_opened = 0;
/// "https": the CA file in BENCH_CA is trusted; "h3" as well, over HTTP/3 only.
static const char *trusted_ca = NULL;
static int http3 = 0;

/// Makes the clients send POSTs when `mode` is "post" (each body encoded again for its request
/// when it is "post-encode"), write each body to a file in BENCH_DIR
/// when it is "file", speak h2c when it is "h2c", trust BENCH_CA when it is "https", and speak
/// HTTP/3 only, trusting BENCH_CA, when it is "h3".
static void choose_method(const char *mode) {
    if (mode != NULL && strcmp(mode, "h2c") == 0) {
        h2c = 1;
        return;
    }
    if (mode != NULL && (strcmp(mode, "https") == 0 || strcmp(mode, "h3") == 0)) {
        trusted_ca = getenv("BENCH_CA");
        http3 = strcmp(mode, "h3") == 0;
        return;
    }
    if (mode != NULL && strcmp(mode, "file") == 0) {
        file_folder = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";
        return;
    }
    if (mode == NULL || (strcmp(mode, "post") != 0 && strcmp(mode, "post-encode") != 0)) return;
    encodes_per_request = strcmp(mode, "post-encode") == 0;
    for (int i = 0; i < 22; i++) {
        items[i].id = i;
        snprintf(items[i].title, sizeof items[i].title, "todo %03d", i);
        items[i].done = i % 2 == 0;
    }
    // The same encoder as each "post-encode" body: the two modes send the same bytes.
    post_body = malloc(2048);
    encode_items(post_body);
    post_headers = curl_slist_append(NULL, "Content-Type: application/json");
}

/// Resets `easy` for the request (a GET, or a POST after `choose_method("post")`) of `url`
/// into `buffer`, which its CURLOPT_PRIVATE points at.
static void prepare_request(CURL *easy, const char *url, Buffer *buffer) {
    buffer->length = 0;
    // Built with REUSES_BUFFER (raw_reused_multi): the other floor, a client that reads every body
    // into the one buffer, grown and paged in once.
#ifdef REUSES_BUFFER
    const int reuses_buffer = 1;
#else
    const int reuses_buffer = 0;
#endif
    if (buffer->capacity > (1 << 20) && !reuses_buffer) {
        // A large body is handed to its caller, as an HTTP client's is: the next one gets a
        // fresh buffer, not one already grown and paged in.
        free(buffer->data);
        buffer->data = NULL;
        buffer->capacity = 0;
    }
    curl_easy_reset(easy);
    curl_easy_setopt(easy, CURLOPT_URL, url);
    if (encodes_per_request) {
        if (buffer->request_body == NULL) buffer->request_body = malloc(2048);
        encode_items(buffer->request_body);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, buffer->request_body);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, post_headers);
    } else if (post_body) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, post_body);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, post_headers);
    }
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    if (h2c) {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, h2c_opened ? CURL_HTTP_VERSION_2_0 : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        h2c_opened = 1;
    }
    if (trusted_ca) {
        curl_easy_setopt(easy, CURLOPT_CAINFO, trusted_ca);
        // Wait for the first connection's handshake to learn whether it multiplexes (ALPN h2)
        // rather than open one per request, as Connect does on https.
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        if (http3) curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_3ONLY);
    }
    if (file_folder) {
        if (buffer->file == NULL) {
            char path[4096];
            snprintf(path, sizeof path, "%s/c-%d.bin", file_folder, files_opened++);
            buffer->file = fopen(path, "w+");
        }
        // Each download starts the file over, as Connect's download(to:) replaces its file.
        rewind(buffer->file);
        ftruncate(fileno(buffer->file), 0);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_file);
    } else {
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    }
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, buffer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, buffer);
}

#endif
