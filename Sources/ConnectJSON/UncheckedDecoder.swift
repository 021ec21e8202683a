#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `JSONDecoder` is not `Sendable` on every platform. Nothing here mutates it after handing it
/// to a step, and decoding with one instance from one thread at a time is safe. Shared by every
/// module of this package that hands a decoder between tasks.
package struct UncheckedDecoder: @unchecked Sendable {
    package let decoder: JSONDecoder

    package init(_ decoder: JSONDecoder) {
        self.decoder = decoder
    }
}
