import Connect
import ConnectFutures
import ConnectTestServer
import Foundation
import InMemoryTracing
import Synchronization
import Testing
import Tracing

/// Spans for every request on the wire, recorded by an in-memory tracer.
@Suite("Distributed tracing")
struct TracingTests {
    let server: TestServer

    init() throws {
        let busy = Atomic<Bool>(true)
        server = try TestServer { request in
            switch request.path {
            case "/moved": return .redirect(to: "/todo", status: 302)
            case "/busy-once":
                return busy.exchange(false, ordering: .relaxed) ? .text("busy", status: 503) : .text("ok")
            case "/missing": return .text("no", status: 404)
            case "/cached": return .json(#"{"ok":true}"#, headers: [("Cache-Control", "max-age=31536000")])
            default: return .json(#"{"ok":true}"#)
            }
        }
    }

    func connect(_ tracer: InMemoryTracer, retrying: Bool = false) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tracer = tracer
        return Connect(
            middleware: retrying ? ConnectMiddleware(retrier: quickPolicy) : ConnectMiddleware(),
            configuration: configuration)
    }

    @Test func aSpanSaysWhetherTheCacheAnswered() async throws {
        let tracer = InMemoryTracer()
        var configuration = ConnectConfiguration()
        configuration.tracer = tracer
        configuration.cache = ResponseCache(memoryCapacity: 1 << 20)
        let connect = Connect(configuration: configuration)
        let url = server.baseURL.appendingPathComponent("cached")
        for _ in 0..<2 { _ = try await connect.send(Request(url: url)).value }
        let statuses = tracer.finishedSpans.map { $0.attributes["connect.cache.status"]?.toSpanAttribute() }
        #expect(statuses == ["miss", "hit"])
        #expect(server.requests.count == 1)
    }

    @Test func aRequestIsAClientSpanWithTheHTTPAttributes() async throws {
        let tracer = InMemoryTracer()
        let url = URL(string: "http://user:pw@127.0.0.1:\(server.baseURL.port!)/todo?Signature=abc&page=2")!
        _ = try await connect(tracer).send(Request(url: url)).value
        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(
            span.attributes["url.full"]?.toSpanAttribute()
                == .string("http://REDACTED:REDACTED@127.0.0.1:\(server.baseURL.port!)/todo?Signature=REDACTED&page=2"))
        #expect(span.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(span.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(server.baseURL.port!)))
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(span.attributes["network.protocol.version"]?.toSpanAttribute() == "1.1")
        #expect(span.attributes["http.request.resend_count"] == nil)
        #expect(span.attributes["error.type"] == nil)
        // The span's context went out with the request.
        let recorded = try #require(server.requests.last)
        #expect(recorded.header(InMemoryTracer.spanIDKey) == span.spanContext.spanID)
        #expect(recorded.header(InMemoryTracer.traceIDKey) == span.spanContext.traceID)
    }

    @Test func theCallersSpanIsTheParent() async throws {
        let tracer = InMemoryTracer()
        let connect = connect(tracer)
        try await tracer.withSpan("checkout") { _ in
            _ = try await connect.request(TestConnector(server, "/todo")).value
        }
        let spans = tracer.finishedSpans
        let parent = try #require(spans.first { $0.operationName == "checkout" })
        let child = try #require(spans.first { $0.operationName == "GET" })
        #expect(child.spanContext.traceID == parent.spanContext.traceID)
        #expect(child.spanContext.parentSpanID == parent.spanContext.spanID)
    }

    @Test func eachRedirectHopIsASpanCountedAsAResend() async throws {
        let tracer = InMemoryTracer()
        _ = try await connect(tracer).request(TestConnector(server, "/moved")).value
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(
            spans.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [.int64(302), .int64(200)])
        #expect(spans[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        // Each hop carries its own span's context.
        let hops = server.requests.suffix(2)
        #expect(hops.map { $0.header(InMemoryTracer.spanIDKey) } == spans.map(\.spanContext.spanID))
    }

    @Test func eachRetryIsASpanAndFailuresSayWhy() async throws {
        let tracer = InMemoryTracer()
        _ = try await connect(tracer, retrying: true).request(TestConnector(server, "/busy-once")).value
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(spans[0].attributes["error.type"]?.toSpanAttribute() == "503")
        #expect(spans[0].status?.code == .error)
        #expect(spans[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(spans[1].status == nil)

        tracer.clearAll()
        _ = await outcome(connect(tracer).request(TestConnector(url: URL(string: "http://127.0.0.1:1")!)))
        let refused = try #require(tracer.finishedSpans.first)
        #expect(refused.attributes["error.type"]?.toSpanAttribute() == "connectionRefused")
        #expect(refused.errors.count == 1)
    }

    @Test func aW3CTracersTraceparentGoesOutOnEveryHop() async throws {
        let tracer = W3CTracer()
        var configuration = ConnectConfiguration()
        configuration.tracer = tracer
        _ = try await Connect(configuration: configuration).request(TestConnector(server, "/moved")).value
        let spans = tracer.recorder.finishedSpans
        #expect(spans.count == 2)
        let hops = server.requests.suffix(2)
        #expect(
            hops.map { $0.header("traceparent") }
                == spans.map { "00-\($0.spanContext.traceID)-\($0.spanContext.spanID)-01" })
    }

    @Test func withoutATracerNothingIsInjected() async throws {
        _ = try await sharedConnect.request(TestConnector(server, "/todo")).value
        let recorded = try #require(server.requests.last)
        #expect(recorded.header(InMemoryTracer.spanIDKey) == nil)
        #expect(!recorded.headers.contains { $0.0.lowercased() == "traceparent" })
    }
}

/// A tracer that writes W3C's `traceparent` header, as swift-otel's does: the in-memory
/// tracer's spans, with their context injected as `00-{trace}-{span}-01`.
struct W3CTracer: Tracer {
    let recorder = InMemoryTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line
        )
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    )
    where Inject.Carrier == Carrier {
        var values: [String: String] = [:]
        recorder.inject(context, into: &values, using: DictionaryInjector())
        guard let trace = values[InMemoryTracer.traceIDKey], let span = values[InMemoryTracer.spanIDKey] else { return }
        injector.inject("00-\(trace)-\(span)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    )
    where Extract.Carrier == Carrier {}

    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }
    }
}
