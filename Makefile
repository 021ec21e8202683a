# The README's quick start: `make demo` and `make test`. Each installs what is missing first.
SWIFT ?= swift
## The debug build's flags, shared by `make check`, `make test-fast` and `make demo` so that each
## reuses the build the one before left in .build: every public type must say whether it is
## Sendable (a warning otherwise, which `make check` fails on).
## The build also writes each module's symbol graph (its public API) into SYMBOL_GRAPHS, which
## `make check` compares with the baseline in API/ (see .ci/api).
SYMBOL_GRAPHS := $(CURDIR)/.build/symbol-graphs
$(shell mkdir -p $(SYMBOL_GRAPHS))
export SYMBOL_GRAPHS
DEBUG_FLAGS := -Xswiftc -require-explicit-sendable -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir \
	-Xswiftc $(SYMBOL_GRAPHS)
## The package's traits (see Package.swift): every one for the plain builds; the sanitizer passes
## leave out Macros, whose code runs inside the compiler, never in a sanitized program, and whose
## swift-syntax is slow to build (ConnectBuildsWithoutMacros: the ConnectMacros module is then
## empty, where an app's build without the trait stops with an error saying how to turn it on).
ALL_TRAITS := --enable-all-traits
SANITIZER_TRAITS := --traits Client,OpenAPI -Xswiftc -DConnectBuildsWithoutMacros
## The sanitizer builds keep line tables only, which is all a sanitizer's report needs to name
## files and lines: full debug information makes each of those builds about a tenth slower.
SANITIZER_DEBUG_INFO := -Xswiftc -gline-tables-only -Xcc -gline-tables-only
## The sanitizer passes run at most 8 tests at a time. Started all at once, hundreds of tests
## start their clients, servers and threads together, and under ThreadSanitizer on two cores that
## stalls every transfer thread for a minute and more, past the timeouts that bound a test's
## hang; the plain passes still run every test at once.
SANITIZER_PARALLELISM := --experimental-maximum-parallelization-width 8

## SwiftPM writes the `-D` flags of the package's traits in the order a Set of them iterates,
## which Swift's per-process hash seed changes from run to run: every command plans the build
## again (`swift test --skip-build` too), and the next build recompiles each of the package's
## modules for a command line whose flags only moved. A fixed seed keeps one order. The test
## processes inherit it; none depends on the seed.
export SWIFT_DETERMINISTIC_HASHING := 1

## The NTLM account GSS-API's NTLM mechanism (gss-ntlmssp) answers Negotiate challenges with in
## the tests (AuthenticationTests), and the one the tests' NTLM servers accept.
export NTLM_USER_FILE := $(CURDIR)/Tests/PythonPeers/ntlm_users.txt
export NTLMUSER := ops

.PHONY: all deps demo api openapi test test-fast test-tsan test-asan test-curl8 test-h3 fuzz fuzz-smoke check format docs bench bench-instructions bench-instructions-guard bench-memory bench-transfers bench-events bench-websockets bench-cache bench-resilience bench-http3 clean

all: test

deps:
	@./.ci/dependencies

## Runs the demo (the Examples package): real requests against an embedded to-do API on 127.0.0.1.
demo: deps
	$(SWIFT) run --package-path Examples $(DEBUG_FLAGS) connect-demo

## Regenerates the to-do API's OpenAPI client (Tests/Support/Sources/TodoAPIClient/Generated) from its openapi.yaml.
openapi:
	./Scripts/generate-openapi

## Runs every test, then again under ThreadSanitizer.
test: test-fast test-tsan

test-fast: deps
	$(SWIFT) test $(ALL_TRAITS) $(DEBUG_FLAGS)

## The sanitizer passes leave out @JSONWritable and its tests (SANITIZER_TRAITS).
test-tsan: deps
	TSAN_OPTIONS="suppressions=$(CURDIR)/Tests/tsan-suppressions.txt" $(SWIFT) test $(SANITIZER_TRAITS) $(SANITIZER_DEBUG_INFO) --sanitize=thread --scratch-path .build-tsan \
		$(SANITIZER_PARALLELISM)

## Runs every test again on libcurl 8 (Debian's backports, fetched into .build-curl8 beside the
## system's libcurl, which stays): Connect's workarounds for libcurl 7.88 must hold on both.
test-curl8: deps
	$(SWIFT) build --build-tests $(ALL_TRAITS) $(DEBUG_FLAGS)
	LD_LIBRARY_PATH="$$(./.ci/libcurl8)" CONNECT_EXPECTED_LIBCURL_MAJOR=8 $(SWIFT) test $(ALL_TRAITS) $(DEBUG_FLAGS) --skip-build

## Runs every test against a libcurl that speaks HTTP/3 (Debian's backports: libcurl 8 in its GnuTLS
## flavour with ngtcp2 and nghttp3, fetched into .build-h3 beside the system's): the GnuTLS backend
## must honour every TLS setting, or refuse it. Its symbols carry other version names than the
## OpenSSL flavour's, so the tests are linked against it: the build in .build, linked anew and
## nothing compiled again (its pkg-config files differ from the system's in their Libs alone);
## the next build against the system's libcurl links anew in turn.
test-h3: deps
	PKG_CONFIG_PATH="$$(./.ci/libcurl-h3)/pkgconfig" $(SWIFT) build --build-tests $(ALL_TRAITS) $(DEBUG_FLAGS)
	PKG_CONFIG_PATH="$$(./.ci/libcurl-h3)/pkgconfig" LD_LIBRARY_PATH="$$(./.ci/libcurl-h3)/lib" CONNECT_EXPECTED_LIBCURL_MAJOR=8 \
		$(SWIFT) test $(ALL_TRAITS) $(DEBUG_FLAGS) --skip-build

## Runs every libFuzzer harness (Fuzz/: the response head, chunked framing, the content decoders,
## event streams, lines, JSON, HTTP dates, a resumed download's ranges and records, WebSocket frames,
## Set-Cookie headers, Cache-Control and a stored response's freshness, the disk cache's entry
## files, Alt-Svc and the alt-svc cache file) for FUZZ_SECONDS each (default 60): `make fuzz FUZZ_SECONDS=3600`.
FUZZ_SECONDS ?= 60
fuzz: deps
	./Fuzz/run $(FUZZ_SECONDS)

## Every harness for 10 seconds from its seed corpus with a fixed seed, as CI runs them; then
## a second each again with libcurl 8 loaded (the parsers never call libcurl, but the harnesses
## link the whole library and must load and run on both).
fuzz-smoke: deps
	FUZZ_SEED=1 ./Fuzz/run 10
	LD_LIBRARY_PATH="$$(./.ci/libcurl8)" FUZZ_SEED=1 ./Fuzz/run 1

## Runs every test under AddressSanitizer (use after free, overflows, double frees). CI runs it too.
## LeakSanitizer stays off: it cannot follow Swift's references into Foundation's storage and
## reports live objects (test fixtures, shared clients) as leaked. Tests/asan-suppressions.txt
## holds the one report known to be Foundation's, not ours.
test-asan: deps
	ASAN_OPTIONS="detect_leaks=0:suppressions=$(CURDIR)/Tests/asan-suppressions.txt" $(SWIFT) test $(SANITIZER_TRAITS) $(SANITIZER_DEBUG_INFO) --sanitize=address --scratch-path .build-asan \
		$(SANITIZER_PARALLELISM)

## Guardrails CI enforces: the tree formatted (.swift-format), no module-qualified Glibc/Darwin
## calls, every public symbol documented, no warnings in our code.
check: deps
	SWIFT="$(SWIFT)" DEBUG_FLAGS="$(DEBUG_FLAGS)" ALL_TRAITS="$(ALL_TRAITS)" ./.ci/check

## Formats every Swift file of ours as .swift-format says (120 columns); `make check` fails on drift.
format:
	SWIFT="$(SWIFT)" ./.ci/format

## Writes the public API baseline (API/<module>.txt) from the current code: a public change is
## committed with it and a line in CHANGELOG.md (`make check` fails otherwise).
api: deps
	$(SWIFT) build --build-tests $(ALL_TRAITS) $(DEBUG_FLAGS)
	./.ci/api

## The DocC catalog (Sources/Connect/Connect.docc) built into a documentation archive
## (.build/Connect.doccarchive). From the symbol graph the compiler writes for Connect, which holds
## what it re-exports (ConnectFutures, ConnectJSON) too, so that the articles link to those types.
DOCC ?= $(shell command -v docc || xcrun --find docc 2>/dev/null)
docs: deps
	$(SWIFT) build $(ALL_TRAITS) $(DEBUG_FLAGS)
	rm -rf .build/docs-symbol-graphs && mkdir -p .build/docs-symbol-graphs
	cp $(SYMBOL_GRAPHS)/Connect.symbols.json $(SYMBOL_GRAPHS)/Connect@*.symbols.json .build/docs-symbol-graphs/
	$(DOCC) convert Sources/Connect/Connect.docc --additional-symbol-graph-dir .build/docs-symbol-graphs \
		--fallback-display-name Connect --fallback-bundle-identifier Connect \
		--output-path .build/Connect.doccarchive --warnings-as-errors

## Benchmarks against raw libcurl in C (release builds; needs nginx, gcc and curl, installed if missing).
bench:
	@./.ci/dependencies --bench
	./Benchmarks/run

## User-space instructions per GET and POST (callgrind), Connect next to raw C: steady where rates
## are not. Fails when Connect's exceed Benchmarks/instructions.txt by more than 3% (CI runs the guard alone).
bench-instructions:
	@./.ci/dependencies --bench
	./Benchmarks/run --instructions

## CI's instruction guard: Connect's GET, POST and JSONWritable POST counted as above and checked
## against Benchmarks/instructions.txt, without the report's other clients and tables.
bench-instructions-guard:
	@./.ci/dependencies --bench
	./Benchmarks/run --instructions --guard

## Peak memory of each client for 200 sequential GETs next to two C floors, and where Connect's
## resident memory goes. WITH_ASYNC_HTTP_CLIENT=1 adds async-http-client (builds it: minutes).
bench-memory:
	@./.ci/dependencies --bench
	./Benchmarks/run --memory

## A 1 GiB download and upload: MB/s next to the curl command, and Connect's peak memory.
bench-transfers:
	@./.ci/dependencies --bench
	./Benchmarks/transfers

## 100,000 Server-Sent Events through connect.events: events/s and Connect's memory.
bench-events:
	@./.ci/dependencies --bench
	./Benchmarks/events

## WebSockets against NIOWebSocket: echo round trips, 1 KiB and 64 KiB messages/s, and the
## memory of 1,000 idle sockets.
bench-websockets:
	@./.ci/dependencies --bench
	./Benchmarks/websockets

## The HTTP cache: a fresh hit's client CPU (and the network it does not use), a revalidation beside
## the same request without a cache and raw libcurl, the memory within the capacity.
bench-cache:
	@./.ci/dependencies --bench
	./Benchmarks/cache

## HTTP/3 beside HTTP/2 over TLS against hypercorn, Connect and raw C on the same libcurl (the
## HTTP/3 one, fetched into .build-h3): client CPU per request, 64 in flight and one at a time.
## `make bench` runs it last.
bench-http3:
	@./.ci/dependencies --bench
	./Benchmarks/http3

## Hedging and the retry budget, each with and without: p50/p99/p99.9 against a server whose 2%
## of responses are late, and the requests a server that is down for 10 s sees under steady load.
bench-resilience:
	@./.ci/dependencies --bench
	./Benchmarks/resilience

clean:
	rm -rf .build .build-tsan .build-asan .build-check .build-curl8 .build-fuzz Fuzz/.build Benchmarks/.build Benchmarks/AsyncHTTPClientMemory/.build Examples/.build Tests/Support/.build
