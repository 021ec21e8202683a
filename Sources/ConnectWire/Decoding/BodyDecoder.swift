/// Undoes what was applied to a response body on its way, in order: the chunked transfer
/// coding (``ChunkedDecoder``), then each content coding of `Content-Encoding`, the last listed
/// first (``ContentDecoder``). Made by the transport when a head ends, for a body that has any.
package final class BodyDecoder {
    /// Why a body could not be decoded.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case chunked(ChunkedDecoder.Problem)
        case content(ContentDecoder.Failure)

        package var description: String {
            switch self {
            case .chunked(let problem): return "the chunked body is malformed: \(problem)"
            case .content(let failure): return failure.description
            }
        }
    }

    private var chunked: ChunkedDecoder?
    /// The content decoders, in the order they run: the coding applied last first.
    private let contentDecoders: [ContentDecoder]

    /// `codings`: the content codings as `Content-Encoding` lists them, in the order they were
    /// applied. At most ``maximumCodings``.
    package init(chunked: Bool, codings: [ContentDecoder.Coding]) throws(Failure) {
        self.chunked = chunked ? ChunkedDecoder() : nil
        var decoders: [ContentDecoder] = []
        do throws(ContentDecoder.Failure) {
            for coding in codings.reversed() { decoders.append(try ContentDecoder(coding: coding)) }
        } catch {
            throw .content(error)
        }
        contentDecoders = decoders
    }

    /// More content codings than a sender has reason to apply; a body with more is refused
    /// (each would cost a decoder's memory).
    package static let maximumCodings = 4

    /// Any body bytes have come.
    package private(set) var hasInput = false

    /// Whether the body so far is whole: the chunked body ended and every compressed stream
    /// that started has ended.
    package var isComplete: Bool {
        (chunked?.isComplete ?? true) && contentDecoders.allSatisfy(\.isComplete)
    }

    /// The chunked body's trailer section (field lines ending with CRLF), once it came.
    package var trailers: [UInt8] { chunked?.trailers ?? [] }

    /// Decodes `input`, handing each piece of the decoded body to `deliver`, which returns
    /// `false` to stop.
    ///
    /// - Returns: whether every piece was delivered.
    package func decode(
        _ input: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(Failure) -> Bool {
        guard !input.isEmpty else { return true }
        hasInput = true
        guard chunked != nil else { return try decodeContent(input, from: 0, deliver) }
        var failure: Failure?
        let delivered: Bool
        do throws(ChunkedDecoder.Problem) {
            delivered = try chunked!.decode(input) { piece in
                do throws(Failure) {
                    return try decodeContent(piece, from: 0, deliver)
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .chunked(error)
        }
        if let failure { throw failure }
        return delivered
    }

    /// Runs `input` through the content decoders from `stage` on.
    private func decodeContent(
        _ input: UnsafeRawBufferPointer, from stage: Int, _ deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(Failure) -> Bool {
        guard stage < contentDecoders.count else { return deliver(input) }
        var failure: Failure?
        let delivered: Bool
        do throws(ContentDecoder.Failure) {
            delivered = try contentDecoders[stage].decode(input) { piece in
                do throws(Failure) {
                    return try decodeContent(piece, from: stage + 1, deliver)
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .content(error)
        }
        if let failure { throw failure }
        return delivered
    }
}
