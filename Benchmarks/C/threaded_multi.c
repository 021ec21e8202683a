// raw_multi in a process with a second thread that only sleeps: what a process with threads
// pays in the C library (malloc's arena locks, cancellable system calls) for the same requests.
#include <pthread.h>
#include <unistd.h>
#include "raw_transfer.h"
#include "one_thread.h"

static void *sleeper(void *unused) { (void)unused; for (;;) pause(); return NULL; }

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper, NULL);
    choose_method(argc > 4 ? argv[4] : NULL);
    return one_thread_main(argv[1], atol(argv[2]), atol(argv[3]));
}
