import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libcurl's socket-closing callback, with the tracker as its context (the one for a socket
/// opened is the transfer's, see `CurlTransfer`).
enum ConnectionTrackerCallbacks {
    static let socketClosing: ccurl_closesocket_callback = { context, socket in
        Unmanaged<ConnectionTracker>.fromOpaque(context!).takeUnretainedValue().closing(socket)
        return close(socket)
    }
}
