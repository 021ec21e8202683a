#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds a ``Request`` from a ``Connector``: fills `{key}` templates, appends the query, encodes
/// the body and checks the result. Pure: no I/O, so every rule here is testable alone.
struct RequestBuilder {
    var jsonEncoder: JSONEncoder
    let userAgent: String
    var environment: ConnectEnvironment {
        get { environmentStorage }
        set {
            environmentStorage = newValue
            replacesBaseURLs = newValue.replacesBaseURLs
        }
    }
    private var environmentStorage = ConnectEnvironment.production
    /// The environment changes some base URLs: read for every request, where the environment's
    /// own optional `URL` would be copied through the Swift runtime.
    private var replacesBaseURLs = false
    let defaultHeaders: [HTTPHeader]
    var defaultQueryItems: [QueryItem] = []
    /// The headers of a request that adds none of its own (no connector or parameter headers,
    /// no token, no body type): the default headers and the `User-Agent`, built and checked
    /// once, so that such a request shares this array rather than building and checking its own.
    private let standardHeaders: [HTTPHeader]
    /// Why `standardHeaders` cannot be sent, if they cannot (a default header that is not a
    /// valid field): every request that uses them fails with it, as one building them would.
    private let standardHeadersProblem: String?
    /// Shared by copies of this builder, so a client's requests share them.
    let parsedURLs = ParsedURLs()
    let unauthorizedTypes = UnauthorizedConnectorTypes()

    init(jsonEncoder: JSONEncoder = JSONEncoder(), userAgent: String = "Connect", defaultHeaders: [HTTPHeader] = []) {
        self.jsonEncoder = jsonEncoder
        self.userAgent = userAgent
        self.defaultHeaders = defaultHeaders
        let standard = Self.headers(
            own: [], defaults: defaultHeaders, parameters: [], token: nil, body: nil, userAgent: userAgent)
        standardHeaders = standard
        standardHeadersProblem = standard.lazy.compactMap(\.validationProblem).first
    }

    init(configuration: ConnectConfiguration) {
        self.init(
            jsonEncoder: configuration.jsonEncoder, userAgent: configuration.userAgent,
            defaultHeaders: configuration.defaultHeaders)
        environment = configuration.environment
        defaultQueryItems = configuration.defaultQueryItems
    }

    /// A multipart upload of `files` to `connector`: its path parameters fill the endpoint as
    /// usual, its query parameters become form fields, and a JSON object becomes a part named
    /// `json` (`application/json`).
    func buildUpload(_ connector: any Connector, files: [File]) throws(ConnectError) -> Request {
        let parameters = try encodeParameters(of: connector)
        var parts = parameters.queryItems.map { FormPart.field($0.name, $0.value ?? "") }
        if let json = parameters.body?.data {
            parts.append(.field("json", data: json, mimeType: .json))
        }
        parts += files.map(FormPart.file)
        for part in parts {
            if let problem = part.validationProblem { throw .invalidRequest(problem) }
        }
        var formParameters = parameters
        formParameters.replaceQueryAndBody(with: .multipart(parts))
        return try build(connector, parameters: formParameters)
    }

    func build(_ connector: any Connector) throws(ConnectError) -> Request {
        try build(connector, parameters: encodeParameters(of: connector))
    }

    private func encodeParameters(of connector: any Connector) throws(ConnectError) -> EncodedParameters {
        var parameters = EncodedParameters(jsonEncoder: jsonEncoder)
        if let given = connector.parameters {
            do {
                try given.encode(into: &parameters)
            } catch let error as ConnectError {
                throw error
            } catch {
                throw .invalidRequest("the parameters could not be encoded: \(error)")
            }
        }
        return parameters
    }

    private func build(_ connector: any Connector, parameters: EncodedParameters) throws(ConnectError) -> Request {
        let base = replacesBaseURLs ? environment.baseURL(for: connector.baseURL) : connector.baseURL
        let parsedURL = try makeCheckedURL(base: base, endpoint: connector.endpoint, parameters: parameters)

        var body = parameters.body
        if let compression = connector.bodyCompression, let given = body { body = try given.compressed(compression) }
        let token = unauthorizedTypes.authorizationToken(of: connector)
        let usesStandardHeaders =
            connector.headers.isEmpty && parameters.headers.isEmpty && token == nil
            && body?.contentType == nil && body?.contentEncoding == nil
        let headers =
            usesStandardHeaders
            ? standardHeaders
            : Self.headers(
                own: connector.headers, defaults: defaultHeaders, parameters: parameters.headers, token: token,
                body: body, userAgent: userAgent)

        // A `let` until the idempotency key: a method called on a `var` retains the request's
        // references around the call and releases them after.
        let request = Request(
            method: connector.method, url: parsedURL.url, headers: headers, body: body,
            timeout: connector.timeout,
            allowsRetry: connector.allowsRetry, httpVersion: connector.httpVersion, credentials: connector.credentials,
            unixSocketPath: connector.unixSocketPath, connectTo: connector.connectTo ?? [],
            cachePolicy: connector.cachePolicy, coalescesIdenticalRequests: connector.coalescesIdenticalRequests
        )
        try request.validate(urlProblem: parsedURL.problem, checkingHeaders: !usesStandardHeaders)
        if usesStandardHeaders, let standardHeadersProblem { throw .invalidRequest(standardHeadersProblem) }
        guard let key = connector.idempotencyKey else { return request }
        var keyed = request
        try Self.add(key, to: &keyed)
        return keyed
    }

    /// Gives `request` the connector's idempotency key, once: a key in the connector's headers as
    /// well would leave the server two to choose from.
    private static func add(_ key: IdempotencyKey, to request: inout Request) throws(ConnectError) {
        if let problem = key.problem { throw .invalidRequest(problem) }
        guard !request.headers.contains(name: IdempotencyKey.headerName) else {
            throw .invalidRequest(
                "the connector has an idempotency key and an Idempotency-Key header too; give the key one way")
        }
        request.headers.append(key.header)
    }

    /// A request's headers, in order: its own, the defaults it lacks, the parameters' it lacks,
    /// the token's `Authorization` in place of any other, the body's type unless it has one, and
    /// the `User-Agent` unless it has one.
    private static func headers(
        own: [HTTPHeader], defaults: [HTTPHeader], parameters: [HTTPHeader], token: AuthorizationToken?,
        body: RequestBody?, userAgent: String
    ) -> [HTTPHeader] {
        var headers = own
        // Room for every header that may be added (after these, the token's, the body's type
        // and the User-Agent): one allocation rather than one for each growth.
        headers.reserveCapacity(headers.count + defaults.count + parameters.count + 3)
        for header in defaults where !headers.contains(name: header.name) {
            headers.append(header)
        }
        for header in parameters where !headers.contains(name: header.name) {
            headers.append(header)
        }
        if let token {
            headers.removeAll { $0.hasName("Authorization") }
            headers.append(token.header)
        }
        headers.addBodyHeaders(of: body)
        if !headers.contains(name: "User-Agent") {
            headers.append(.userAgent(userAgent))
        }
        return headers
    }

    /// The URL and ``Request/problem(with:)`` for it.
    private func makeCheckedURL(
        base: URL, endpoint: String, parameters: EncodedParameters
    ) throws(ConnectError) -> ParsedURLs.Entry {
        // An endpoint with no path values or query items to add: its URL is the one last made
        // from the same base and endpoint, found without building its text again.
        let joinsAlone = parameters.pathValues.isEmpty && parameters.queryItems.isEmpty && defaultQueryItems.isEmpty
        let fullBaseText = base.absoluteString
        if joinsAlone, let entry = parsedURLs.lastJoined(base: fullBaseText, endpoint: endpoint) {
            return entry
        }
        // Searched as UTF-8: every request comes through here, and a Character-level search
        // decodes grapheme clusters the URL's ASCII delimiters do not need.
        var baseText = fullBaseText
        var baseQuery: Substring?
        if let fragmentStart = Self.firstIndex(of: UInt8(ascii: "#"), in: baseText) {
            baseText = String(baseText[..<fragmentStart])
        }
        if let queryStart = Self.firstIndex(of: UInt8(ascii: "?"), in: baseText) {
            baseQuery = baseText[baseText.index(after: queryStart)...]
            baseText = String(baseText[..<queryStart])
        }

        var endpointPath = Substring(endpoint)
        var endpointQuery: Substring?
        if let queryStart = Self.firstIndex(of: UInt8(ascii: "?"), in: endpointPath) {
            endpointQuery = endpointPath[endpointPath.index(after: queryStart)...]
            endpointPath = endpointPath[..<queryStart]
        }
        let path = try fillTemplates(in: endpointPath, with: parameters.pathValues)

        var text = baseText
        if !path.isEmpty {
            while text.utf8.last == UInt8(ascii: "/") { text.removeLast() }
            if path.utf8.first != UInt8(ascii: "/") { text += "/" }
            text += path
        }

        var queryParts: [String] = []
        if let baseQuery, !baseQuery.isEmpty { queryParts.append(String(baseQuery)) }
        if let endpointQuery, !endpointQuery.isEmpty { queryParts.append(String(endpointQuery)) }
        if !defaultQueryItems.isEmpty {
            let ownNames = Set(parameters.queryItems.map(\.name))
            queryParts += defaultQueryItems.filter { !ownNames.contains($0.name) }.map(Self.encode)
        }
        if !parameters.queryItems.isEmpty { queryParts += parameters.queryItems.map(Self.encode) }
        if !queryParts.isEmpty { text += "?" + queryParts.joined(separator: "&") }

        guard let parsed = parsedURLs.entry(for: text) else {
            throw .invalidRequest("\(text.debugDescription) is not a valid URL")
        }
        if joinsAlone { parsedURLs.rememberJoined(base: fullBaseText, endpoint: endpoint, entry: parsed) }
        return parsed
    }

    /// The first `byte` of `text`'s UTF-8 form: a byte scan of the contiguous storage native
    /// strings have, where `utf8.firstIndex(of:)` steps index by index (a visible cost per request).
    static func firstIndex<Text: StringProtocol>(of byte: UInt8, in text: Text) -> Text.Index? {
        let utf8 = text.utf8
        guard let offset = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) else {
            return utf8.firstIndex(of: byte)
        }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// Replaces each `{key}` with its value encoded as one path segment. Every template must
    /// have a value and every value a template, so a typo fails loudly instead of sending
    /// `/users/{id}` to the server.
    func fillTemplates(in endpoint: Substring, with values: [String: String]) throws(ConnectError) -> String {
        // Most endpoints have no template and most connectors no path values: nothing to check,
        // where the loop below would still set up its set and build a new string.
        if values.isEmpty, Self.firstIndex(of: UInt8(ascii: "{"), in: endpoint) == nil { return String(endpoint) }
        var result = ""
        var used = Set<String>()
        var rest = endpoint
        while let open = Self.firstIndex(of: UInt8(ascii: "{"), in: rest) {
            result += rest[..<open]
            guard let close = Self.firstIndex(of: UInt8(ascii: "}"), in: rest[open...]) else {
                throw .invalidRequest(
                    "the endpoint \(String(endpoint).debugDescription) has a \"{\" without a closing \"}\"")
            }
            let key = String(rest[rest.index(after: open)..<close])
            guard let value = values[key] else {
                throw .invalidRequest(
                    "no path parameter fills {\(key)} in the endpoint \(String(endpoint).debugDescription)")
            }
            result += Self.encodePathSegment(value)
            used.insert(key)
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        // `used` holds only keys of `values`, so a count short of it means one went unused; the
        // keys are sorted only then, so that the error names the same one every time.
        if used.count < values.count, let unused = values.keys.sorted().first(where: { !used.contains($0) }) {
            throw .invalidRequest(
                "the path parameter \"\(unused)\" has no {\(unused)} in the endpoint \(String(endpoint).debugDescription)"
            )
        }
        return result
    }

    /// Every byte but RFC 3986's unreserved characters is percent-encoded, and the dot-segments
    /// `.` and `..` are encoded too, so that no value can add, remove or climb a path segment.
    static func encodePathSegment(_ value: String) -> String {
        if value == "." || value == ".." {
            return String(repeating: "%2E", count: value.utf8.count)
        }
        return percentEncode(value)
    }

    /// `name=value` (or `name` alone), each percent-encoded.
    static func encode(_ item: QueryItem) -> String {
        let name = percentEncode(item.name)
        guard let value = item.value else { return name }
        return name + "=" + percentEncode(value)
    }

    /// RFC 3986 percent-encoding: unreserved characters stay, every other byte of the UTF-8 form
    /// becomes `%XX` (so a space is `%20` and a `+` is `%2B`).
    static func percentEncode(_ text: String) -> String {
        var encoded = [UInt8]()
        encoded.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hex[Int(byte >> 4)])
                encoded.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
