"""lldb's side of `Benchmarks/walk/run`: runs the walk program, stops at the entry of every
function of Connect's modules between `walkStarts()` and `walkEnds()`, and counts the GET's walk
through the source files.

A stay is an entry into a file: a call into a function of another file, or a return to a caller
in another file than the callee's. A re-entry is a stay in a file the walk was in before. Frames
outside the checkout's `Sources/` (the standard library, Foundation, libcurl) are transparent:
a call through them from one of our files to another counts once. Each thread keeps its own
position; the stays of all threads are counted in the order they happened.

Three walks are printed: every function's; the path's, which leaves out the calls into a
leaf (a function that calls none of ours, e.g. a comparison of header names or a lock), as a
reader tracing the request by hand does; and the pipeline's, where the helpers every layer
calls (HELPERS: header lookups, locks, byte buffers, trimming) are transparent as well.
"""
import collections
import json
import os

import lldb

MODULES = r"(^|[ (])(Connect|ConnectWire|ConnectJSON|ConnectFutures)\."
HELPERS = {"HTTPHeader.swift", "HeaderText.swift", "Locked.swift", "GrowableBytes.swift",
           "StringProtocol+Trimming.swift"}
hits = []
state = {"recording": False, "breakpoint": None, "sources": None}


def our_stack(thread):
    """The thread's frames in our sources, outermost first: (file, function, frame address)."""
    stack = []
    for frame in thread.frames:
        path = frame.GetLineEntry().GetFileSpec().fullpath or ""
        if path.startswith(state["sources"]):
            stack.append((os.path.relpath(path, state["sources"]), frame.GetFunctionName(), frame.GetCFA()))
    stack.reverse()
    return stack


def on_function(frame, location, extra, internal):
    if state["recording"]:
        thread = frame.GetThread()
        hits.append((thread.GetThreadID(), our_stack(thread)))
    return False


def on_start(frame, location, extra, internal):
    state["recording"] = True
    return False


def on_end(frame, location, extra, internal):
    state["recording"] = False
    return False


def stays(hits):
    """The walk: each stay's file, in order, from each thread's stacks at each function entry."""
    previous = {}
    position = {}
    walk = []

    def stay(thread, file):
        if position.get(thread) != file:
            position[thread] = file
            walk.append(file)

    for thread, stack in hits:
        if not stack:
            continue
        before = previous.get(thread)
        if before is None:
            position[thread] = stack[0][0]
            before = stack[:1]
        common = 0
        while common < min(len(before), len(stack)) and before[common] == stack[common]:
            common += 1
        for depth in range(len(before) - 1, common - 1, -1):
            if depth - 1 >= 0 and depth - 1 < common:
                stay(thread, before[depth - 1][0])
        for depth in range(common, len(stack)):
            stay(thread, stack[depth][0])
        previous[thread] = stack
    return walk


def without_leaves(hits):
    """The hits whose innermost function calls one of ours in its turn."""
    callers = set()
    for thread, stack in hits:
        for frame in stack[:-1]:
            callers.add((thread, frame))
    return [(thread, stack) for thread, stack in hits if stack and (thread, stack[-1]) in callers]


def without_helpers(hits):
    """The hits with the frames in HELPERS' files left out of each stack."""
    kept = []
    for thread, stack in hits:
        frames = [frame for frame in stack if os.path.basename(frame[0]) not in HELPERS]
        if frames and frames[-1] == stack[-1]:
            kept.append((thread, frames))
    return kept


def summary(name, hits):
    sequence = stays(hits)
    seen = set()
    reentries = 0
    for file in sequence:
        if file in seen:
            reentries += 1
        seen.add(file)
    print(f"| {name} | {len(hits)} | {len(sequence)} | {len(seen)} | {reentries} |")
    return sequence


def walk(debugger, command, result, internal):
    executable, url, sources = command.split()
    state["sources"] = os.path.realpath(sources) + "/"
    debugger.SetAsync(False)
    target = debugger.CreateTarget(executable)
    for name, callback in [("walkStarts", "on_start"), ("walkEnds", "on_end")]:
        marker = target.BreakpointCreateByRegex(name)
        marker.SetScriptCallbackFunction("count." + callback)
    functions = target.BreakpointCreateByRegex(MODULES)
    functions.SetScriptCallbackFunction("count.on_function")
    process = target.LaunchSimple([url], None, os.getcwd())
    while process.GetState() == lldb.eStateStopped:
        process.Continue()
    print("| walk | function entries | stays | files | re-entries |")
    print("| --- | ---: | ---: | ---: | ---: |")
    walks = [
        summary("every function", hits),
        summary("the path (no leaf calls)", without_leaves(hits)),
        summary("the pipeline (no leaf calls, helpers transparent)", without_leaves(without_helpers(hits))),
    ]
    path = walks[-1]
    counts = [collections.Counter(walk) for walk in walks]
    print()
    print("Stays by file:")
    print()
    print("| file | every function | path | pipeline |")
    print("| --- | ---: | ---: | ---: |")
    for file, _ in counts[0].most_common():
        print(f"| `{file}` | " + " | ".join(str(count[file]) for count in counts) + " |")
    if os.environ.get("WALK_HITS"):
        with open(os.environ["WALK_HITS"], "w") as out:
            json.dump(hits, out)
    if os.environ.get("WALK_SEQUENCE"):
        print()
        print(" -> ".join(os.path.basename(file) for file in path))
    if os.environ.get("WALK_FUNCTIONS"):
        print()
        for thread, stack in without_leaves(without_helpers(hits)):
            print(thread, " > ".join(f"{os.path.basename(file)}:{function}" for file, function, _ in stack[-3:]))


def __lldb_init_module(debugger, internal):
    debugger.HandleCommand("command script add -f count.walk walk")
