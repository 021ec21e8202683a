/// A ``JSONWriter`` used wrongly (a member outside an object, two values where one goes, a member
/// that wrote nothing) or out of memory: the request is not sent, and Connect reports it as
/// ``ConnectError/invalidRequest(_:)`` with this description.
package struct JSONWriterMistake: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
