// A floor for `make bench-memory`: only the libraries Connect uses through libcurl (OpenSSL for
// TLS, nghttp2 for HTTP/2, zlib), loaded and initialised. Set against libcurl_loaded.c, it
// shows what a libcurl built without the protocols Connect never uses (LDAP, RTMP, SSH,
// Kerberos, and the second TLS library RTMP brings) would save.
// The prototypes are declared here: only the libraries are installed, not their headers.
#include <stdint.h>
#include <stdio.h>

int OPENSSL_init_ssl(uint64_t options, const void *settings);
const void *TLS_client_method(void);
void *SSL_CTX_new(const void *method);
int nghttp2_session_callbacks_new(void **callbacks);
const char *zlibVersion(void);

int main(void) {
    OPENSSL_init_ssl(0, NULL);
    void *context = SSL_CTX_new(TLS_client_method());
    void *callbacks = NULL;
    nghttp2_session_callbacks_new(&callbacks);
    printf("%p %p zlib %s\n", context, callbacks, zlibVersion());
    return 0;
}
