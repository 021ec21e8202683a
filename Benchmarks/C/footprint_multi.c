// raw_multi.c running, after each response, code that does next to nothing but is spread out:
// what touching more distinct code per request costs, apart from running more instructions.
// usage: footprint_multi URL TOTAL INFLIGHT LINES [pages|same]
// LINES calls of next-to-empty functions run after each response, each function alone in its own
// 64-byte cache line (LINES up to 800, about 9 instructions a call); with `pages`, each alone in
// its own 4 KiB page (LINES up to 200); with `same`, LINES calls of one function: the same
// instructions in one line, the control. With LINES 0 it is raw_multi.
// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t (*Step)(uint64_t);

// Functions named step100 to step899, each aligned to a cache line or to a page.
#define STEP(name, alignment) \
    __attribute__((noinline, aligned(alignment))) static uint64_t name(uint64_t x) { return x * 3 + 1; }
#define TEN(prefix, alignment) STEP(prefix##0, alignment) STEP(prefix##1, alignment) STEP(prefix##2, alignment) \
    STEP(prefix##3, alignment) STEP(prefix##4, alignment) STEP(prefix##5, alignment) STEP(prefix##6, alignment) \
    STEP(prefix##7, alignment) STEP(prefix##8, alignment) STEP(prefix##9, alignment)
#define HUNDRED(prefix, alignment) TEN(prefix##0, alignment) TEN(prefix##1, alignment) TEN(prefix##2, alignment) \
    TEN(prefix##3, alignment) TEN(prefix##4, alignment) TEN(prefix##5, alignment) TEN(prefix##6, alignment) \
    TEN(prefix##7, alignment) TEN(prefix##8, alignment) TEN(prefix##9, alignment)
#define NAMES_TEN(prefix) prefix##0, prefix##1, prefix##2, prefix##3, prefix##4, prefix##5, prefix##6, prefix##7, prefix##8, prefix##9
#define NAMES_HUNDRED(prefix) NAMES_TEN(prefix##0), NAMES_TEN(prefix##1), NAMES_TEN(prefix##2), NAMES_TEN(prefix##3), \
    NAMES_TEN(prefix##4), NAMES_TEN(prefix##5), NAMES_TEN(prefix##6), NAMES_TEN(prefix##7), NAMES_TEN(prefix##8), NAMES_TEN(prefix##9)

HUNDRED(line1, 64) HUNDRED(line2, 64) HUNDRED(line3, 64) HUNDRED(line4, 64)
HUNDRED(line5, 64) HUNDRED(line6, 64) HUNDRED(line7, 64) HUNDRED(line8, 64)
HUNDRED(page1, 4096) HUNDRED(page2, 4096)

static const Step lines[] = {
    NAMES_HUNDRED(line1), NAMES_HUNDRED(line2), NAMES_HUNDRED(line3), NAMES_HUNDRED(line4),
    NAMES_HUNDRED(line5), NAMES_HUNDRED(line6), NAMES_HUNDRED(line7), NAMES_HUNDRED(line8),
};
static const Step pages[] = { NAMES_HUNDRED(page1), NAMES_HUNDRED(page2) };

static const Step *steps = lines;
static long step_count = 0;
static int one_function = 0;
static volatile uint64_t sink;

/// Runs the chosen steps after each response.
static void run_steps(void) {
    uint64_t x = sink;
    for (long i = 0; i < step_count; i++) x = steps[one_function ? 0 : i](x);
    sink = x;
}

#define AFTER_RESPONSE() run_steps()
#include "raw_transfer.h"
#include "one_thread.h"

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s URL TOTAL INFLIGHT LINES [pages|same]\n", argv[0]);
        return 2;
    }
    int spread = argc > 5 && strcmp(argv[5], "pages") == 0;
    one_function = argc > 5 && strcmp(argv[5], "same") == 0;
    long limit = spread ? (long)(sizeof pages / sizeof pages[0]) : (long)(sizeof lines / sizeof lines[0]);
    step_count = atol(argv[4]);
    if (step_count < 0 || step_count > limit) {
        fprintf(stderr, "LINES must be from 0 to %ld\n", limit);
        return 2;
    }
    if (spread) steps = pages;
    choose_method(NULL);
    return one_thread_main(argv[1], atol(argv[2]), atol(argv[3]));
}
