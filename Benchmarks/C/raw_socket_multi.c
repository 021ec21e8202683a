// raw_multi.c driven as Connect's loop drives libcurl: `curl_multi_socket_action` and a poll(2)
// of its own over the sockets libcurl names, one thread. The floor for a client that runs only
// the transfers whose socket is ready or whose timer is due.
// usage: raw_socket_multi URL TOTAL INFLIGHT [post|post-encode|file|h2c|https]
#define DRIVES_SOCKET_ACTION
#include "raw_multi.c"
