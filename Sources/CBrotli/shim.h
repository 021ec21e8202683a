#ifndef CONNECT_CBROTLI_SHIM_H
#define CONNECT_CBROTLI_SHIM_H

#include <brotli/decode.h>
#include <brotli/encode.h>

#endif
