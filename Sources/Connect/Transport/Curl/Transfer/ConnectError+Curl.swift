import CCurl

extension ConnectError {
    /// The case for a failed libcurl transfer.
    init(curlCode code: CURLcode, message: String, requestSent: Bool) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CLIENTCERT,
            CURLE_USE_SSL_FAILED:
            self = .tls(code: Int(code.rawValue), message: message)
        case CURLE_URL_MALFORMAT:
            self = .invalidRequest(message)
        case CURLE_UNSUPPORTED_PROTOCOL where !requestSent:
            // After sending, the same code means the reply was not HTTP (an HTTP/0.9 answer).
            self = .invalidRequest(message)
        default:
            self = .transport(
                TransportFailure(
                    kind: TransportFailure.Kind(curlCode: code, message: message, requestSent: requestSent),
                    message: message, requestSent: requestSent, curlCode: Int(code.rawValue)))
        }
    }
}

extension TransportFailure.Kind {
    /// The kind of a libcurl failure. libcurl 7.88 reports some malformed responses with codes
    /// of other failures: a bad chunk as a receive error, a head over its size limit as out of
    /// memory (libcurl 8.6 and later as `CURLE_TOO_LARGE`).
    init(curlCode code: CURLcode, message: String, requestSent: Bool) {
        switch code {
        case CURLE_RECV_ERROR where message.contains("chunk"): self = .malformedResponse
        case CURLE_OUT_OF_MEMORY where requestSent: self = .malformedResponse
        // libcurl 8.6's CURLE_TOO_LARGE: a head over its size limit.
        case CURLcode(rawValue: 100) where requestSent: self = .malformedResponse
        case CURLE_COULDNT_CONNECT: self = .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST: self = .nameResolution
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: self = .proxy
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR: self = .connectionReset
        case CURLE_GOT_NOTHING: self = .connectionClosed
        case CURLE_HTTP2, CURLE_HTTP2_STREAM: self = .streamReset
        case CURLE_PARTIAL_FILE: self = .truncatedResponse
        // A NUL in a header, an HTTP/0.9 answer (refused), a body that is not its coding.
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_CONTENT_ENCODING: self = .malformedResponse
        case CURLE_TOO_MANY_REDIRECTS: self = .tooManyRedirects
        case CURLE_INTERFACE_FAILED: self = .localInterface
        case CURLE_WRITE_ERROR, CURLE_READ_ERROR, CURLE_FILE_COULDNT_READ_FILE: self = .localFile
        default: self = .other
        }
    }
}

extension TransportFailure {
    /// A failure Connect found itself in what libcurl received or did.
    init(_ kind: Kind, _ message: String, requestSent: Bool = true) {
        self.init(kind: kind, message: message, requestSent: requestSent)
    }
}
