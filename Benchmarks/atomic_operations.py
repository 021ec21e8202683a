#!/usr/bin/env python3
"""The atomic read-modify-write instructions a client runs for every request, by library.

usage: atomic_operations.py SMALL.callgrind LARGE.callgrind REQUESTS

Both files come from `valgrind --tool=callgrind --dump-instr=yes`, the second run making
REQUESTS more requests than the first (as for `code_footprint.py`). An atomic instruction is one
with a `lock` prefix, or an `xchg` with memory (locked by itself), found with `objdump -d` in each
library the runs executed. Prints "TOTAL SWIFT LIBC OWN OTHER": per request, all of them, those
of the Swift runtime (reference counting: each retain and release of an object shared with
other threads is one), of the C library (malloc's arena locks and the cancellation points of
system calls, which it takes only once a process has a second thread), of the client's own code
(its locks), and of every other library.

Why it matters: each costs some tens of cycles, where most instructions cost less than one, and
callgrind counts it as one instruction; a client can run about as many instructions as another
and still take longer (Benchmarks/LOG.md, "Atomic operations per request").
"""
import re
import subprocess
import sys

from code_footprint import executions


def atomic_addresses(path):
    """The addresses of the atomic instructions of the library or program at `path`."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True).stdout
    addresses = set()
    for line in listing.splitlines():
        match = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if match and (match.group(2).startswith("lock ") or (match.group(2).startswith("xchg") and "(" in match.group(2))):
            addresses.add(int(match.group(1), 16))
    return addresses


def group(path, program):
    name = path.rsplit("/", 1)[-1]
    if name.startswith("libswiftCore"):
        return "swift"
    if name.startswith("libc.so"):
        return "libc"
    if path == program:
        return "own"
    return "other"


def main():
    small, large = executions(sys.argv[1]), executions(sys.argv[2])
    requests = int(sys.argv[3])
    objects = {obj for obj, _ in large if obj}
    # The program is the one object that is not a shared library.
    program = next((obj for obj in objects if obj.startswith("/") and ".so" not in obj.rsplit("/", 1)[-1]), None)
    atomic = {obj: atomic_addresses(obj) for obj in objects if obj.startswith("/")}
    totals = {"swift": 0, "libc": 0, "own": 0, "other": 0}
    for (obj, address), count in large.items():
        if address in atomic.get(obj, ()):
            totals[group(obj, program)] += count - small.get((obj, address), 0)
    per = {key: round(value / requests) for key, value in totals.items()}
    print(sum(per.values()), per["swift"], per["libc"], per["own"], per["other"])


if __name__ == "__main__":
    main()
