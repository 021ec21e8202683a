import Foundation

/// One part of a multipart body, as the test server received it.
struct ReceivedPart {
    var headers: [String: String]
    var body: Data

    /// A parameter of Content-Disposition, e.g. `name` or `filename`, still escaped.
    func disposition(_ parameter: String) -> String? {
        guard let disposition = headers["content-disposition"] else { return nil }
        for piece in disposition.split(separator: ";") {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\(parameter)=") else { continue }
            var value = trimmed.dropFirst(parameter.count + 1)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    var name: String? { disposition("name") }
    var filename: String? { disposition("filename") }
}

/// Splits a `multipart/form-data` body on the boundary its content type names.
func parseMultipart(_ body: Data, contentType: String?) -> [ReceivedPart]? {
    guard let contentType, let range = contentType.range(of: "boundary=") else { return nil }
    let boundary = Data("--".utf8) + Data(contentType[range.upperBound...].utf8)
    let separator = Data("\r\n".utf8) + boundary
    guard body.starts(with: boundary) else { return nil }
    var parts: [ReceivedPart] = []
    var cursor = body.startIndex + boundary.count
    while true {
        // After a boundary: "--" ends the body, "\r\n" starts a part.
        if body[cursor...].starts(with: Data("--".utf8)) { return parts }
        guard body[cursor...].starts(with: Data("\r\n".utf8)) else { return nil }
        cursor += 2
        guard let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: cursor..<body.endIndex),
            let next = body.range(of: separator, in: headerEnd.upperBound..<body.endIndex)
        else { return nil }
        var headers: [String: String] = [:]
        for line in String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        parts.append(ReceivedPart(headers: headers, body: Data(body[headerEnd.upperBound..<next.lowerBound])))
        cursor = next.upperBound
    }
}
