import CCurl

/// libcurl's callbacks for a transfer, as C function pointers. Each finds the transfer (or the
/// easy handle running it) behind its context pointer and hands the call on, without retaining
/// it: the transfer loop holds both for as long as libcurl can call back, and these run for every
/// header line, body chunk and progress tick.
enum TransferCallbacks {
    /// Runs `body` with the transfer behind `context`.
    private static func withTransfer<Result>(
        _ context: UnsafeMutableRawPointer?, _ body: (CurlTransfer) -> Result
    ) -> Result {
        Unmanaged<CurlTransfer>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
    }

    static let writeBody: ccurl_data_callback = { buffer, size, count, context in
        withTransfer(context) { $0.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count)) }
    }

    static let receiveHeader: ccurl_data_callback = { buffer, size, count, context in
        let length = size * count
        return withTransfer(context) { $0.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) }
            ? length : 0
    }

    /// libcurl created a socket for a new connection, with the easy handle as the context: the
    /// tracker learns of it, and the transfer may be stopped to wait for another's new
    /// connection to the same origin (`CURL_SOCKOPT_ERROR` ends the attempt before it connects).
    static let socketOpened: ccurl_sockopt_callback = { context, socket, _ in
        let opens = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
            let serial = handle.connections.opened(
                socket, unixSocketPath: handle.withTransfer { $0.unixSocketPath } ?? nil)
            return handle.withTransfer { transfer in
                transfer.connection.opened = serial.map { (socket, $0) }
                return transfer.mayOpenConnection(handle.connections)
            }
        }
        return opens != false ? 0 : 1  // CURL_SOCKOPT_OK, CURL_SOCKOPT_ERROR
    }

    /// libcurl's pre-request callback, with the easy handle as the context: the transfer running
    /// on it decides whether the request may go out on the chosen connection.
    static let connectionChosen: ccurl_prereq_callback = { context, _, _, remotePort, localPort in
        let ports = ConnectionTracker.ports(local: Int(localPort), remote: Int(remotePort))
        let proceeds = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
            handle.withTransfer { $0.connectionChosen(ports: ports, connections: handle.connections) }
        }
        return proceeds != false ? ccurl_prereq_ok : ccurl_prereq_abort
    }

    static let reportProgress: ccurl_progress_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
        withTransfer(context) {
            $0.reportProgress(
                downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal),
                uploaded: Int64(uploaded))
        }
        return 0
    }
}
