#ifndef CONNECT_CZSTD_SHIM_H
#define CONNECT_CZSTD_SHIM_H

#include <zstd.h>

#endif
