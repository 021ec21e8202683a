import CCurl

/// The message of a failed transfer: what libcurl wrote, unless that hides what its code means.
///
/// libcurl keeps the first message a transfer's failure wrote (`CURLOPT_ERRORBUFFER`), not the
/// one that goes with the code it returns. A handshake that found the server's certificate
/// expired while the server had already closed the connection fails with
/// `CURLE_PEER_FAILED_VERIFICATION` and reads "Send failure: Broken pipe" (sending the alert):
/// the code says TLS, the message says socket. Under a TLS failure's code, a message about the
/// socket therefore comes after what the code means, and for a certificate OpenSSL refused,
/// after its reason, which libcurl gives as a number (`CURLINFO_SSL_VERIFYRESULT`).
enum CurlFailureMessage {
    /// The message for `code`, whose transfer wrote `firstMessage` (empty if none);
    /// `verifyResult` gives OpenSSL's verification result, `nil` on another TLS library, and is
    /// asked only for a refused certificate.
    static func text(code: CURLcode, firstMessage: String, verifyResult: () -> Int?) -> String {
        let meaning = String(cString: curl_easy_strerror(code))
        guard !firstMessage.isEmpty else { return meaning }
        guard isTLSFailure(code), isAboutTheSocket(firstMessage) else { return firstMessage }
        if code == CURLE_PEER_FAILED_VERIFICATION, let result = verifyResult(), result != 0 {
            return "SSL certificate problem: \(certificateProblem(result)) (and then: \(firstMessage))"
        }
        return "\(meaning) (and then: \(firstMessage))"
    }

    /// The codes of a failed TLS handshake or a refused certificate.
    static func isTLSFailure(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS:
            true
        default:
            false
        }
    }

    /// libcurl's messages for a failed send or receive on the connection's socket.
    static func isAboutTheSocket(_ message: String) -> Bool {
        message.hasPrefix("Send failure") || message.hasPrefix("Recv failure")
    }

    /// OpenSSL's words for the verification results a server's certificate meets most
    /// (`X509_V_ERR_…`), the number for any other.
    static func certificateProblem(_ result: Int) -> String {
        switch result {
        case 2: "unable to get issuer certificate"
        case 7: "certificate signature failure"
        case 9: "certificate is not yet valid"
        case 10: "certificate has expired"
        case 18: "self-signed certificate"
        case 19: "self-signed certificate in certificate chain"
        case 20: "unable to get local issuer certificate"
        case 21: "unable to verify the first certificate"
        case 23: "certificate revoked"
        case 24: "invalid CA certificate"
        case 26: "unsupported certificate purpose"
        case 62: "hostname mismatch"
        default: "verification result \(result)"
        }
    }
}
