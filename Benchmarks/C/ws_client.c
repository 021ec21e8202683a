/* The floor for `make bench-websockets`: the same workloads as Benchmarks/WebSocketBenchmark, in
 * C, on the same libcurl connect-only socket with the same framing (masked client frames, the
 * server's frames parsed from a buffer), one thread, no checks beyond what the workload needs.
 *
 *   ws_client PORT echo COUNT          COUNT round trips of a 32-byte text message
 *   ws_client PORT flood COUNT BYTES   the server sends COUNT binary messages of BYTES each
 *   ws_client PORT flood-text COUNT BYTES   the same, text (not checked as UTF-8 here)
 *
 * Prints the same line as the Swift benchmark: `echo <count> <seconds> <per second>` or
 * `flood <count> <bytes> <seconds> <messages/s> <MB/s>`.
 */
#include <curl/curl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static CURL *handle;
static curl_socket_t sock;
static unsigned char *input;
static size_t input_start, input_end, input_capacity = 1 << 20;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void wait_for(short events) {
    struct pollfd fd = {sock, events, 0};
    poll(&fd, 1, 5000);
}

static void send_all(const unsigned char *bytes, size_t count) {
    size_t offset = 0;
    while (offset < count) {
        size_t sent = 0;
        CURLcode code = curl_easy_send(handle, bytes + offset, count - offset, &sent);
        if (code == CURLE_AGAIN) { wait_for(POLLOUT); continue; }
        if (code != CURLE_OK) { fprintf(stderr, "send: %s\n", curl_easy_strerror(code)); exit(1); }
        offset += sent;
    }
}

/* Reads more bytes into the input buffer, waiting for them. */
static void receive_more(void) {
    if (input_start > 0 && input_start == input_end) input_start = input_end = 0;
    if (input_end == input_capacity) {
        memmove(input, input + input_start, input_end - input_start);
        input_end -= input_start;
        input_start = 0;
        if (input_end == input_capacity) { input_capacity *= 2; input = realloc(input, input_capacity); }
    }
    for (;;) {
        size_t received = 0;
        CURLcode code = curl_easy_recv(handle, input + input_end, input_capacity - input_end, &received);
        if (code == CURLE_AGAIN) { wait_for(POLLIN); continue; }
        if (code != CURLE_OK || received == 0) { fprintf(stderr, "recv ended\n"); exit(1); }
        input_end += received;
        return;
    }
}

/* One masked client frame. */
static void send_frame(int opcode, const unsigned char *payload, size_t count) {
    unsigned char *frame = malloc(count + 14);
    size_t header = 2;
    frame[0] = 0x80 | opcode;
    if (count < 126) { frame[1] = 0x80 | count; }
    else if (count < 65536) { frame[1] = 0x80 | 126; frame[2] = count >> 8; frame[3] = count; header = 4; }
    else { frame[1] = 0x80 | 127; for (int i = 0; i < 8; i++) frame[2 + i] = (unsigned char)((unsigned long long)count >> (56 - 8 * i)); header = 10; }
    unsigned int key = (unsigned int)rand();
    unsigned char mask[4] = {key >> 24, key >> 16, key >> 8, key};
    memcpy(frame + header, mask, 4);
    for (size_t i = 0; i < count; i++) frame[header + 4 + i] = payload[i] ^ mask[i & 3];
    send_all(frame, header + 4 + count);
    free(frame);
}

/* The next whole server frame's payload length (its bytes stay in the buffer, skipped). */
static size_t next_frame(void) {
    for (;;) {
        size_t available = input_end - input_start;
        if (available >= 2) {
            unsigned char *p = input + input_start;
            size_t length = p[1] & 0x7F, header = 2;
            if (length == 126) { header = 4; if (available >= 4) length = (p[2] << 8) | p[3]; }
            else if (length == 127) { header = 10; if (available >= 10) { length = 0; for (int i = 0; i < 8; i++) length = (length << 8) | p[2 + i]; } }
            if (available >= header && available >= header + length) {
                input_start += header + length;
                return length;
            }
        }
        receive_more();
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: ws_client PORT echo COUNT | PORT flood COUNT BYTES | PORT flood-text COUNT BYTES\n"); return 2; }
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%s/bench", argv[1]);
    input = malloc(input_capacity);
    curl_global_init(CURL_GLOBAL_ALL);
    handle = curl_easy_init();
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_CONNECT_ONLY, 1L);
    if (curl_easy_perform(handle) != CURLE_OK) { fprintf(stderr, "connect failed\n"); return 1; }
    curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &sock);
    char request[512];
    int length = snprintf(request, sizeof request,
        "GET /bench HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", argv[1]);
    send_all((unsigned char *)request, length);
    /* The 101's head, up to its blank line. */
    for (;;) {
        unsigned char *end = memmem(input + input_start, input_end - input_start, "\r\n\r\n", 4);
        if (end) { input_start = end + 4 - input; break; }
        receive_more();
    }
    int count = atoi(argv[3]);
    if (strcmp(argv[2], "echo") == 0) {
        unsigned char text[32];
        memset(text, 'x', sizeof text);
        for (int i = 0; i < 100; i++) { send_frame(1, text, sizeof text); next_frame(); }
        double start = now();
        for (int i = 0; i < count; i++) { send_frame(1, text, sizeof text); next_frame(); }
        double seconds = now() - start;
        printf("echo %d %.3f %.0f\n", count, seconds, count / seconds);
    } else {
        int bytes = atoi(argv[4]);
        char command[64];
        int commandLength = snprintf(command, sizeof command, "cmd:%s %d %d", argv[2], count, bytes);
        double start = now();
        send_frame(1, (unsigned char *)command, commandLength);
        for (int i = 0; i < count; i++) {
            if (next_frame() != (size_t)bytes) { fprintf(stderr, "unexpected frame\n"); return 1; }
        }
        double seconds = now() - start;
        printf("flood %d %d %.3f %.0f %.1f\n", count, bytes, seconds, count / seconds, (double)count * bytes / seconds / 1e6);
    }
    unsigned char close_payload[2] = {0x03, 0xE8};
    send_frame(8, close_payload, 2);
    curl_easy_cleanup(handle);
    return 0;
}
