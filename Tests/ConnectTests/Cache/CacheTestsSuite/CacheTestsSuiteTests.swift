import ConnectTestServer
import Foundation
import Synchronization
import Testing

@testable import Connect

/// The cases of http-tests/cache-tests (the suite cache-tests.fyi grades browser and CDN caches
/// with; `cache-tests.json`, written from it by `export.mjs`) that apply to a private cache, run
/// against Connect's cache and an in-process server that answers as the suite's own server does.
/// The clock is the test's: the suite's three-second pauses move it instead of waiting.
///
/// Applicable: every case but those for shared caches only (`cdn_only`, `browser_skip`), and
/// those that need what a fetch() client has and Connect's API does not (interim responses).
/// Each case is run as the suite's runner runs it and ends `passed`, `failed` (with the
/// suite's message), or `setupFailed` (a step the case only prepares with did not go as the
/// case needs, which says nothing about the behaviour tested). The required cases must pass
/// but for ``knownFailures``; the optimal and informational ones are counted and printed.
@Suite("http-tests/cache-tests", .timeLimit(.minutes(3)))
struct CacheTestsSuiteTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "cache-tests.json")

    /// Required cases Connect fails on purpose, with the reason.
    static let knownFailures: [String: String] = [:]

    @Test func theRequiredCasesPassAndTheRestAreCounted() async throws {
        let suite = try JSONDecoder().decode(ExportedSuite.self, from: Data(contentsOf: Self.file))
        let runner = try CacheTestsRunner()
        defer { runner.shutdown() }
        var results: [String: CacheTestsRunner.Outcome] = [:]
        var report: [String: [String: Int]] = [:]
        // CACHE_TESTS_ONLY=id,id runs those cases alone, printing what the server saw.
        let only = ProcessInfo.processInfo.environment["CACHE_TESTS_ONLY"].map {
            Set($0.split(separator: ",").map(String.init))
        }
        for testCase in suite.cases where only?.contains(testCase.id) ?? true {
            let outcome: CacheTestsRunner.Outcome
            if let reason = testCase.notApplicableReason {
                outcome = .notApplicable(reason)
            } else {
                outcome = await runner.run(testCase)
            }
            results[testCase.id] = outcome
            report[testCase.kind, default: [:]][outcome.label, default: 0] += 1
        }
        var lines = ["cache-tests \(suite.commit.prefix(12)): \(suite.cases.count) cases"]
        for kind in ["required", "optimal", "check"] {
            let counts = report[kind] ?? [:]
            lines.append(
                "  \(kind): "
                    + ["passed", "failed", "setup failed", "not applicable"].map { "\(counts[$0] ?? 0) \($0)" }
                    .joined(separator: ", "))
        }
        for testCase in suite.cases {
            switch results[testCase.id] {
            case .failed(let message)?: lines.append("  \(testCase.kind) \(testCase.id) failed: \(message)")
            case .setupFailed(let message)?: lines.append("  \(testCase.kind) \(testCase.id) setup failed: \(message)")
            default: break
            }
        }
        print(lines.joined(separator: "\n"))
        for testCase in suite.cases where testCase.kind == "required" {
            guard case .failed(let message)? = results[testCase.id] else { continue }
            // A case that depends on one that failed says nothing of its own.
            let dependencyFailed = testCase.dependsOn.contains {
                if case .failed? = results[$0] { return true }
                return false
            }
            if Self.knownFailures[testCase.id] == nil, !dependencyFailed {
                Issue.record("\(testCase.id) (\(testCase.name)): \(message)")
            }
        }
        // The counts the suite's reference file holds: a case lost in the export would not fail.
        #expect(suite.cases.count == 370)
        if only != nil { print(results) }
    }
}

/// `cache-tests.json`.
struct ExportedSuite: Decodable {
    let source: String
    let commit: String
    let cases: [CacheTestCase]
}

/// One case of the suite: requests sent one after another, each with what the server answers
/// and what the client must see.
struct CacheTestCase: Decodable {
    let suite: String
    let id: String
    let name: String
    let kind: String
    let browserOnly: Bool
    let browserSkip: Bool
    let cdnOnly: Bool
    let dependsOn: [String]
    let requests: [[String: JSONValue]]

    enum CodingKeys: String, CodingKey {
        case suite, id, name, kind, requests
        case browserOnly = "browser_only"
        case browserSkip = "browser_skip"
        case cdnOnly = "cdn_only"
        case dependsOn = "depends_on"
    }

    /// Why the case does not apply to Connect's cache, or `nil` when it does.
    var notApplicableReason: String? {
        if cdnOnly { return "for CDNs" }
        if browserSkip { return "for shared caches" }
        if requests.contains(where: { $0["expected_interim_responses"] != nil }) {
            return "checks interim (1xx) responses, which Connect's API does not expose"
        }
        return nil
    }
}

/// A JSON value of any type, as the suite's fields mix them.
enum JSONValue: Decodable, Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self { Int(value) } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
}
