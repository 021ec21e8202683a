internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key of an `Idempotency-Key` header: it lets a server recognise a POST or PATCH it has
/// already processed, so that the request may be sent again safely.
///
/// A connector gives each request a key of its own with ``random(quoted:)``, or derives one from what
/// the request does (an order's number), so that even a request sent again after the app
/// restarts carries the same key:
///
/// ```swift
/// struct PlaceOrder: Connector {
///     let order: Order
///     var method: HTTPMethod { .post }
///     var idempotencyKey: IdempotencyKey? { IdempotencyKey("order-\(order.number)") }
///     …
/// }
/// ```
/// Every attempt of the request (each retry and each hedge) carries the same key, and a request
/// with a key counts as one that may be repeated: ``RetryPolicy`` retries it as it retries a GET,
/// and the transport may send it again on a new connection. Set ``Request/allowsRetry`` to
/// `false` to forbid that anyway.
///
/// The key is written bare (`Idempotency-Key: order-42`), as the payment APIs that take the
/// header read it, or with ``quoted`` as the IETF's Idempotency-Key draft writes it, a
/// structured-field string (`Idempotency-Key: "order-42"`). A key is 1 to 255 visible ASCII
/// characters other than `"` and `\`, so that both forms carry it unescaped; any other fails the
/// request with ``ConnectError/invalidRequest(_:)`` before it is sent.
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The key itself, without quotes.
    public let value: String
    /// Whether the header writes the key as a structured-field string in double quotes, as the
    /// IETF draft does; `false` (the default) writes it bare.
    public let quoted: Bool

    /// The name of the header that carries the key.
    public static let headerName = "Idempotency-Key"

    /// A key with the given value.
    public init(_ value: String, quoted: Bool = false) {
        self.value = value
        self.quoted = quoted
    }

    /// A new random key (a UUID, lowercased), different on every call: for a request whose
    /// retries and hedges must be recognised, but that has nothing of its own to derive a key from.
    public static func random(quoted: Bool = false) -> IdempotencyKey {
        IdempotencyKey(UUID().uuidString.lowercased(), quoted: quoted)
    }

    public var description: String { headerValue }

    /// The header field's value: the key, quoted if asked.
    var headerValue: String { quoted ? "\"\(value)\"" : value }

    /// The header that carries the key.
    var header: HTTPHeader { HTTPHeader(name: Self.headerName, value: headerValue) }

    /// Why the key cannot be sent, or `nil` if it can.
    var problem: String? {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 255 else {
            return "the idempotency key \(value.debugDescription) must have 1 to 255 characters"
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else {
            return
                "the idempotency key \(value.debugDescription) may have only visible ASCII characters other than \" and \\"
        }
        return nil
    }

    /// The key a header value carries: a quoted value is unquoted.
    init(headerValue: String) {
        let trimmed = headerValue.trimmingHTTPSpaces
        if trimmed.utf8.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") {
            self.init(String(trimmed.dropFirst().dropLast()), quoted: true)
        } else {
            self.init(String(trimmed))
        }
    }
}
