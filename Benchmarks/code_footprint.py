#!/usr/bin/env python3
"""The code a client runs for every request: distinct 64-byte cache lines and 4 KiB pages of
machine code, by library.

usage: code_footprint.py SMALL.callgrind LARGE.callgrind REQUESTS [--totals]

Both files come from `valgrind --tool=callgrind --dump-instr=yes`, the second run making
REQUESTS more requests than the first. An instruction counts when the larger run executed it at
least REQUESTS / 2 more times, so start-up, warm-up and rare paths cancel out. Prints one
markdown row per library group and one for the total, or with `--totals` only "LINES PAGES";
then, for the client's own code, the bytes of the instructions run (their lengths from
`objdump -d`) and the lines those would fill if they were packed together.

Lines move by up to 15 between builds of the same code, as functions shift across 64-byte
boundaries; the bytes run do not, which makes them the steadier measure of a change to the code.

What it is worth: between two requests the kernel's network stack and the server run, and a
request's code is read back from farther caches each time. On this VM that costs less than it
seemed: Connect built with its hot functions laid out together (65 pages of its own code to 17)
ran no faster (Benchmarks/LOG.md, "Atomic operations per request"). The counts describe how much
code a request runs; `atomic_operations.py` counts what costs more.
"""
import collections
import re
import subprocess
import sys

DEFINITION = re.compile(r"(c?)(ob|fn)=\((\d+)\)(?: (.*))?")


def executions(path):
    """Times each (object, address) executed, from callgrind's per-instruction costs."""
    names, counts = {}, collections.Counter()
    current_object, skip_next, last = None, False, 0
    with open(path, errors="replace") as lines:
        for line in lines:
            definition = DEFINITION.match(line)
            if definition:
                callee, kind, number, name = definition.groups()
                if name:
                    names[kind + number] = name
                if kind == "ob" and not callee:
                    current_object = names[kind + number]
                continue
            if line.startswith("calls="):
                skip_next = True  # the next cost line is the call's inclusive cost
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            fields = line.split()
            position = fields[0]
            if position.startswith("0x"):
                last = int(position, 16)
            elif position[0] in "+-":
                last += int(position)
            if skip_next:
                skip_next = False
                continue
            if len(fields) >= 3:
                counts[(current_object, last)] += int(fields[2])
    return counts


def group(path):
    name = path.rsplit("/", 1)[-1]
    if name == "???":  # the kernel's vDSO: clock_gettime
        return "C library"
    if name.startswith("libcurl"):
        return "libcurl"
    if name.startswith(("libc.so", "ld-linux", "libm.so", "libpthread")):
        return "C library"
    if name.startswith(("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime")):
        return "Swift runtime, Foundation, Dispatch"
    if name.startswith("lib"):
        return "other libraries"
    return "the client's own code"


INSTRUCTION = re.compile(r"\s+([0-9a-f]+):")


def instruction_lengths(path):
    """Each instruction's length in the object at `path`, by address, from `objdump -d`."""
    try:
        listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True).stdout
    except OSError:
        return {}
    lengths, previous = {}, None
    for line in listing.splitlines():
        found = INSTRUCTION.match(line)
        if not found:
            previous = None  # a new symbol or section: no instruction runs on into it
            continue
        address = int(found.group(1), 16)
        if previous is not None and 0 < address - previous <= 15:
            lengths[previous] = address - previous
        previous = address
    return lengths


def main():
    small, large, requests = executions(sys.argv[1]), executions(sys.argv[2]), int(sys.argv[3])
    lines, pages = collections.defaultdict(set), collections.defaultdict(set)
    for (obj, address), count in large.items():
        if obj is None or count - small.get((obj, address), 0) < requests / 2:
            continue
        lines[group(obj)].add((obj, address >> 6))
        pages[group(obj)].add((obj, address >> 12))
    total_lines = sum(len(s) for s in lines.values())
    total_pages = sum(len(s) for s in pages.values())
    if "--totals" in sys.argv:
        print(total_lines, total_pages)
        return
    for name in sorted(lines, key=lambda g: -len(lines[g])):
        print(f"| {name} | {len(lines[name])} | {len(pages[name])} |")
    print(f"| all | {total_lines} | {total_pages} |")
    own = [(obj, address) for (obj, address), count in large.items()
           if obj is not None and group(obj) == "the client's own code" and count - small.get((obj, address), 0) >= requests / 2]
    lengths = {obj: instruction_lengths(obj) for obj in {obj for obj, _ in own}}
    # An instruction objdump did not list (the last of a function) counts as 4 bytes, about the average.
    run = sum(lengths[obj].get(address, 4) for obj, address in own)
    if run:
        print(f"\nThe client's own code: {run} bytes of instructions run, {-(-run // 64)} lines if packed together.")


if __name__ == "__main__":
    main()
