import Foundation
import FuzzSupport

@testable import ConnectJSON

/// The JSON reader against Foundation's: a text Connect reads, Foundation reads too, to the same
/// values (Connect's reader is at least as strict).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let ours = JSONReader.value(from: data) else { return 0 }
    guard let reference = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else {
        require(
            false, "read by Connect, refused by Foundation: \(String(decoding: data, as: UTF8.self).debugDescription)")
        return 0
    }
    require(same(ours, reference), "read differently: \(ours) / \(reference)")
    return 0
}

/// Whether Connect's value and Foundation's are the same JSON value.
func same(_ ours: Any, _ reference: Any) -> Bool {
    switch ours {
    case let object as [String: Any]:
        guard let other = reference as? [String: Any], other.count == object.count else { return false }
        return object.allSatisfy { key, value in other[key].map { same(value, $0) } ?? false }
    case let array as [Any]:
        guard let other = reference as? [Any], other.count == array.count else { return false }
        return zip(array, other).allSatisfy(same)
    case let text as String:
        return reference as? String == text
    case let flag as Bool:
        return reference as? Bool == flag
    case let number as Int:
        return closeEnough(Double(number), reference)
    case let number as Double:
        return closeEnough(number, reference)
    case is JSONNull:
        return reference is NSNull
    default:
        return false
    }
}

/// Foundation keeps an integer too large for `Int` as a decimal, whose `doubleValue` is a few
/// units off in the last places: the same number within a relative 1e-9.
func closeEnough(_ number: Double, _ reference: Any) -> Bool {
    guard let other = (reference as? NSNumber)?.doubleValue ?? (reference as? Double) else { return false }
    return number == other || abs(number - other) <= abs(number) * 1e-9
}
