// Raw C with Connect's checks: raw_multi.c's one thread, doing per request what Connect's
// transport does besides the request itself, so that the cost of that work is measured apart
// from the cost of Swift. Per request it sets the options Connect sets (the URL, the timeout, the
// data pointers), and every handle keeps the options Connect sets once per handle (its own
// header and write callbacks, the socket callbacks, the pre-request callback, the connect
// timeout, keep-alive, no redirects, http and https only, no proxy from the environment);
// libcurl's handle is not reset between requests, as Connect's is not between plain GETs. The
// work Connect does in those callbacks is done here too:
//   - the socket callbacks keep a table of open connections by descriptor and, once connected,
//     by their ports (what the pre-request callback names a connection by);
//   - the pre-request callback finds the connection and, when it carried an HTTP/1 exchange
//     before, peeks at it for unread bytes (a response nobody asked for), as Connect does;
//   - the header callback checks each line as Connect's ResponseHeadParser does (the status
//     line's version and code, a colon in every field, Content-Length read and compared) and
//     copies it into the transfer's header bytes;
//   - the request carries Connect's default User-Agent header, as a header of its own;
//   - a finished transfer's outcome is read as Connect reads it: the status, the HTTP version,
//     the bytes sent and received, whether the connection was reused, and five timings.
// Connect's own work above the transport (its futures, the request built from a connector, the
// response handed to a callback) has no counterpart here.
// usage: checked_multi URL TOTAL INFLIGHT
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include <netinet/in.h>
#include <sys/socket.h>

#include "benchmark_request.h"

/// One open connection of the table, indexed by its descriptor.
typedef struct {
    int open;
    long ports;  // local << 16 | remote, or 0 while unknown
    int last_exchange_was_http1;
} Connection;

static Connection connections[4096];
/// One past the highest descriptor opened: the table is scanned that far.
static int connections_end = 0;

/// What Connect's transfer keeps per request beyond the body.
typedef struct {
    Buffer body;
    Buffer headers;  // every field line of the head, as received
    int status_code, head_complete, has_field;
    long content_length;  // -1 while none
    int problem;          // a refused head
    int socket;           // the connection it went out on, -1 until chosen
    char error_buffer[CURL_ERROR_SIZE];
    // The outcome, read back when it finishes.
    long http_version, request_size, reused;
    curl_off_t timings[5], received;
} Transfer;

static int sockopt_opened(void *context, curl_socket_t socket, curlsocktype purpose) {
    (void)context, (void)purpose;
    if (socket >= 0 && socket < 4096) {
        connections[socket] = (Connection){.open = 1};
        if (socket >= connections_end) connections_end = socket + 1;
    }
    return CURL_SOCKOPT_OK;
}

static int socket_closing(void *context, curl_socket_t socket) {
    (void)context;
    if (socket >= 0 && socket < 4096) connections[socket].open = 0;
    return close(socket);
}

static int port_of(int socket, int (*name)(int, struct sockaddr *, socklen_t *)) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (name(socket, (struct sockaddr *)&address, &length) != 0) return -1;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return -1;
}

/// The socket of the connection with `ports`, learnt from the sockets whose ports are unknown.
static int socket_for(long ports) {
    for (int s = 0; s < connections_end; s++) {
        if (!connections[s].open) continue;
        if (connections[s].ports == 0) {
            int local = port_of(s, getsockname), remote = port_of(s, getpeername);
            if (local < 0 || remote < 0) continue;
            connections[s].ports = (long)local << 16 | remote;
        }
        if (connections[s].ports == ports) return s;
    }
    return -1;
}

static int connection_chosen(void *context, char *remote_ip, char *local_ip, int remote_port, int local_port) {
    (void)remote_ip, (void)local_ip;
    Transfer *transfer = context;
    transfer->socket = socket_for((long)local_port << 16 | remote_port);
    if (transfer->socket >= 0 && connections[transfer->socket].last_exchange_was_http1) {
        char byte;
        if (recv(transfer->socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
            shutdown(transfer->socket, SHUT_RDWR);
            return CURL_PREREQFUNC_ABORT;
        }
    }
    return CURL_PREREQFUNC_OK;
}

static int digit(const char *line, size_t length, size_t at) {
    return at < length && line[at] >= '0' && line[at] <= '9' ? line[at] - '0' : -1;
}

/// The code of "HTTP/1.1 200 OK" or "HTTP/2 200", or -1.
static int status_code_of(const char *line, size_t length) {
    size_t at = 5;
    int major = digit(line, length, at++);
    if (major == 1) {
        if (at + 1 >= length || line[at] != '.' || digit(line, length, at + 1) > 1 || digit(line, length, at + 1) < 0) return -1;
        at += 2;
    } else if (major == 2 || major == 3) {
        if (at < length && line[at] == '.') {
            if (digit(line, length, at + 1) != 0) return -1;
            at += 2;
        }
    } else {
        return -1;
    }
    if (at >= length || line[at++] != ' ') return -1;
    int h = digit(line, length, at), t = digit(line, length, at + 1), o = digit(line, length, at + 2);
    if (h < 0 || t < 0 || o < 0) return -1;
    at += 3;
    if (at != length && line[at] != ' ') return -1;
    int code = h * 100 + t * 10 + o;
    return code >= 100 && code <= 599 ? code : -1;
}

/// A Content-Length value: digits between blanks, at most 18; -1 if it is not one.
static long content_length_of(const char *value, size_t length) {
    long result = 0;
    int digits = 0, blank_after = 0;
    for (size_t i = 0; i < length; i++) {
        char c = value[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 18 || blank_after) return -1;
            result = result * 10 + (c - '0');
        } else if (c == ' ' || c == '\t') {
            if (digits) blank_after = 1;
        } else {
            return -1;
        }
    }
    return digits ? result : -1;
}

static size_t receive_header(char *bytes, size_t size, size_t count, void *context) {
    Transfer *transfer = context;
    size_t total = size * count, length = total;
    if (length && bytes[length - 1] == '\n') length--;
    if (length && bytes[length - 1] == '\r') length--;
    if (length == 0) {
        if (transfer->status_code >= 200) transfer->head_complete = 1;
        return total;
    }
    if (length >= 5 && memcmp(bytes, "HTTP/", 5) == 0) {
        transfer->status_code = status_code_of(bytes, length);
        if (transfer->status_code < 0) return transfer->problem = 1, 0;
        transfer->content_length = -1;
        transfer->head_complete = transfer->has_field = 0;
        transfer->headers.length = 0;
        return total;
    }
    if (transfer->status_code == 0) return transfer->problem = 1, 0;
    if (bytes[0] == ' ' || bytes[0] == '\t') {
        if (!transfer->has_field) return transfer->problem = 1, 0;
    } else {
        const char *colon = memchr(bytes, ':', length);
        if (colon == NULL) return transfer->problem = 1, 0;
        transfer->has_field = 1;
        size_t name = colon - bytes;
        if ((bytes[0] | 0x20) == 'c' && name == 14 && strncasecmp(bytes, "content-length", 14) == 0) {
            long value = content_length_of(colon + 1, length - name - 1);
            if (value < 0 || (transfer->content_length >= 0 && transfer->content_length != value)) return transfer->problem = 1, 0;
            transfer->content_length = value;
        }
    }
    return write_body(bytes, 1, total, &transfer->headers);
}

/// The URL, parsed once by libcurl, as a Connect easy handle keeps its last URL parsed.
static CURLU *parsed_url = NULL;

/// Connect's default headers, set as Connect sets its request headers.
static struct curl_slist *default_headers = NULL;

/// The options Connect sets once per handle.
static void set_up(CURL *easy, Transfer *transfer) {
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error_buffer);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, receive_header);
    curl_easy_setopt(easy, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, sockopt_opened);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, socket_closing);
    curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, connection_chosen);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 60000L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "");
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
}

/// The options Connect sets per request, and the transfer's state started over.
static void start(CURLM *multi, CURL *easy, const char *url, Transfer *transfer) {
    transfer->body.length = 0;
    transfer->status_code = transfer->head_complete = transfer->has_field = transfer->problem = 0;
    transfer->content_length = -1;
    transfer->socket = -1;
    transfer->headers.length = 0;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_CURLU, parsed_url);  // as Connect hands libcurl its URL parsed
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer->body);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, transfer);
    curl_easy_setopt(easy, CURLOPT_PREREQDATA, transfer);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 60000L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, default_headers);  // as Connect sets its headers per request
    curl_multi_add_handle(multi, easy);
}

/// Reads a finished transfer's outcome as Connect does; returns whether it succeeded.
static int finish(CURL *easy, Transfer *transfer, CURLcode code) {
    curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &transfer->request_size);
    if (code != CURLE_OK || transfer->problem || !transfer->head_complete) return 0;
    curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &transfer->http_version);
    if (transfer->socket >= 0) connections[transfer->socket].last_exchange_was_http1 = transfer->http_version < CURL_HTTP_VERSION_2_0;
    static const CURLINFO timings[5] = {CURLINFO_NAMELOOKUP_TIME_T, CURLINFO_CONNECT_TIME_T, CURLINFO_APPCONNECT_TIME_T,
                                        CURLINFO_STARTTRANSFER_TIME_T, CURLINFO_TOTAL_TIME_T};
    for (int i = 0; i < 5; i++) curl_easy_getinfo(easy, timings[i], &transfer->timings[i]);
    curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &transfer->received);
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &transfer->reused);
    return transfer->status_code == 200;
}

#include "one_thread.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT\n", argv[0]);
        return 2;
    }
    parsed_url = curl_url();
    if (curl_url_set(parsed_url, CURLUPART_URL, argv[1], CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
        fprintf(stderr, "%s: cannot parse %s\n", argv[0], argv[1]);
        return 2;
    }
    default_headers = curl_slist_append(NULL, "User-Agent: Connect/0.1");
    default_headers = curl_slist_append(default_headers, "Accept-Encoding: gzip, deflate, br, zstd");
    return one_thread_main(argv[1], atol(argv[2]), atol(argv[3]));
}
