import CCurl
import Foundation
import Testing

@testable import Connect

/// A failed transfer's message: libcurl's own, unless it speaks of the socket under a TLS
/// failure's code (libcurl keeps the first message a failure wrote, not the code's).
@Suite("A failed transfer's message")
struct CurlFailureMessageTests {
    @Test(
        arguments: [
            // (code, libcurl's first message, OpenSSL's verification result, the message)
            (
                CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem: certificate has expired", 10,
                "SSL certificate problem: certificate has expired"
            ),
            (
                CURLE_PEER_FAILED_VERIFICATION, "Send failure: Broken pipe", 10,
                "SSL certificate problem: certificate has expired (and then: Send failure: Broken pipe)"
            ),
            (
                CURLE_PEER_FAILED_VERIFICATION, "Recv failure: Connection reset by peer", 18,
                "SSL certificate problem: self-signed certificate (and then: Recv failure: Connection reset by peer)"
            ),
            (
                CURLE_PEER_FAILED_VERIFICATION, "Send failure: Broken pipe", 99,
                "SSL certificate problem: verification result 99 (and then: Send failure: Broken pipe)"
            ),
            // No result (another TLS library, or none recorded): what the code means.
            (
                CURLE_PEER_FAILED_VERIFICATION, "Send failure: Broken pipe", nil,
                "MEANING (and then: Send failure: Broken pipe)"
            ),
            (
                CURLE_PEER_FAILED_VERIFICATION, "Send failure: Broken pipe", 0,
                "MEANING (and then: Send failure: Broken pipe)"
            ),
            (
                CURLE_SSL_CONNECT_ERROR, "Recv failure: Connection reset by peer", 10,
                "MEANING (and then: Recv failure: Connection reset by peer)"
            ),
            // A socket's failure under its own code is the message.
            (CURLE_SEND_ERROR, "Send failure: Broken pipe", 10, "Send failure: Broken pipe"),
            (CURLE_RECV_ERROR, "Recv failure: Connection reset by peer", nil, "Recv failure: Connection reset by peer"),
            // Nothing written: what the code means.
            (CURLE_COULDNT_CONNECT, "", nil, "MEANING"),
            (CURLE_PEER_FAILED_VERIFICATION, "", 10, "MEANING")
        ] as [(CURLcode, String, Int?, String)])
    func theMessageSaysWhatFailed(code: CURLcode, firstMessage: String, verifyResult: Int?, expected: String) {
        // MEANING: libcurl's words for the code, which its versions word differently
        // ("Couldn't connect to server" in 7.88, "Could not connect to server" in 8).
        let meaning = String(cString: curl_easy_strerror(code))
        let expected = expected.replacingOccurrences(of: "MEANING", with: meaning)
        #expect(CurlFailureMessage.text(code: code, firstMessage: firstMessage) { verifyResult } == expected)
    }

    /// The verification result is read only for a certificate refused with a message about the
    /// socket: libcurl's own message needs none.
    @Test func theVerificationResultIsReadOnlyWhenItIsNeeded() {
        let cases: [(CURLcode, String)] = [
            (CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem: certificate has expired"),
            (CURLE_SSL_CONNECT_ERROR, "Send failure: Broken pipe"),
            (CURLE_SEND_ERROR, "Send failure: Broken pipe"),
            (CURLE_PEER_FAILED_VERIFICATION, "")
        ]
        for (code, message) in cases {
            _ = CurlFailureMessage.text(code: code, firstMessage: message) {
                Issue.record("read the verification result for \(code.rawValue), \"\(message)\"")
                return nil
            }
        }
    }

    @Test func theTLSLibraryIsReadFromLibcurlsDescription() {
        let openSSL = LibcurlFeatures(hasHTTP3: false, description: "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13")
        let gnuTLS = LibcurlFeatures(hasHTTP3: true, description: "libcurl/8.14.1 GnuTLS/3.7.9 zlib/1.2.13")
        let none = LibcurlFeatures(hasHTTP3: false, description: "libcurl/8.14.1")
        #expect(openSSL.tlsLibraryIsOpenSSL && !gnuTLS.tlsLibraryIsOpenSSL && !none.tlsLibraryIsOpenSSL)
    }
}
