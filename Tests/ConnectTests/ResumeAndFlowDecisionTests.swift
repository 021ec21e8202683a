import Testing

@testable import Connect

/// The resume and stream flow-control decisions, without a socket.
@Suite("Resume and flow-control decisions")
struct ResumeAndFlowDecisionTests {
    @Test(arguments: [
        (206, "bytes 100-199/200" as String?, Int64(100), ResumeDecision.append),
        (206, "bytes 100-199/*", 100, .append),
        (206, "bytes  100-199/200", 100, .append),
        (200, nil, 100, .startOver),  // the server ignored the range
        (200, "bytes 100-199/200", 100, .startOver),
        (206, "bytes 0-199/200", 0, .startOver),  // nothing on disk
        (206, "bytes 50-199/200", 100, .refuse("the server resumed at byte 50, not at 100 where the file ends")),
        (206, nil, 100, .refuse("the server answered 206 without a Content-Range that says where its part starts")),
        (
            206, "bytes */200", 100,
            .refuse("the server answered 206 without a Content-Range that says where its part starts")
        ),
        (
            206, "items 100-199/200", 100,
            .refuse("the server answered 206 without a Content-Range that says where its part starts")
        )
    ])
    func resume(status: Int, contentRange: String?, onDisk: Int64, decision: ResumeDecision) {
        #expect(ResumeDecision(status: status, contentRange: contentRange, bytesOnDisk: onDisk) == decision)
    }

    /// One step of a stream, and what flow control answers.
    enum Step: Sendable, CustomStringConvertible {
        case offer(Int, accepted: Bool)
        case offerToWaitingConsumer(Int)
        case take(Int, resumes: Bool)
        case consumerWaits(resumes: Bool)

        var description: String {
            switch self {
            case .offer(let count, let accepted): return "offer \(count) → \(accepted ? "taken" : "paused")"
            case .offerToWaitingConsumer(let count): return "offer \(count) to a waiting consumer"
            case .take(let count, let resumes): return "take \(count) → \(resumes ? "resume" : "stay")"
            case .consumerWaits(let resumes): return "consumer waits → \(resumes ? "resume" : "stay")"
            }
        }
    }

    @Test(arguments: [
        (
            "fills, pauses, resumes under half",
            [
                Step.offer(40, accepted: true), .offer(40, accepted: true), .offer(40, accepted: true),  // 120 ≥ 100
                .offer(10, accepted: false), .take(40, resumes: false), .take(40, resumes: true)  // 80, then 40 < 50
            ]
        ),
        (
            "a waiting consumer resumes a paused transfer",
            [
                .offer(100, accepted: true), .offer(1, accepted: false), .take(100, resumes: true),
                .consumerWaits(resumes: false)
            ]
        ),
        (
            "chunks handed straight on are not buffered",
            [
                .offerToWaitingConsumer(500), .offer(99, accepted: true), .offer(1, accepted: true),
                .offer(1, accepted: false)
            ]
        ),
        (
            "no resume without a pause",
            [
                .offer(10, accepted: true), .take(10, resumes: false), .consumerWaits(resumes: false)
            ]
        ),
        (
            "resumes once",
            [
                .offer(100, accepted: true), .offer(1, accepted: false), .consumerWaits(resumes: true),
                .consumerWaits(resumes: false)
            ]
        )
    ])
    func flowControl(name: String, steps: [Step]) {
        var flow = FlowControl(limit: 100)
        for (index, step) in steps.enumerated() {
            let (answer, expected): (Bool, Bool)
            switch step {
            case .offer(let count, let accepted): (answer, expected) = (flow.offer(count, buffering: true), accepted)
            case .offerToWaitingConsumer(let count): (answer, expected) = (flow.offer(count, buffering: false), true)
            case .take(let count, let resumes): (answer, expected) = (flow.took(count), resumes)
            case .consumerWaits(let resumes): (answer, expected) = (flow.consumerWaits(), resumes)
            }
            #expect(answer == expected, "\(name), step \(index): \(step)")
        }
        #expect(flow.peak <= 100 + 40)
    }
}
