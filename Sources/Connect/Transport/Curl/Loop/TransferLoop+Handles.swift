import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The easy handles: which transfer each runs, and keeping them for the next transfer.
extension TransferLoop {
    func configureCookies(_ handle: CurlEasyHandle) {
        guard let share else { return }
        handle.set(CURLOPT_SHARE, pointer: share)
        switch cookies {
        case .none:
            break
        case .inMemory:
            handle.set(CURLOPT_COOKIEFILE, "")  // turns the engine on without a file
        case .file(let url):
            // Read into the shared jar (libcurl skips cookies it already has) and written back
            // after each transfer, see `remove`.
            handle.set(CURLOPT_COOKIEFILE, url.path)
            handle.set(CURLOPT_COOKIEJAR, url.path)
        }
    }

    /// The handle a transfer in flight runs on; a linear search, for cancels and unpauses only.
    func activeHandle(running transfer: CurlTransfer) -> CurlEasyHandle? {
        active.first { $0.transfer === transfer }
    }

    func addActive(_ handle: CurlEasyHandle, running transfer: CurlTransfer) {
        handle.transfer = transfer
        handle.activeIndex = active.count
        active.append(handle)
    }

    /// Swaps the last active handle into `handle`'s place: constant time, order is not kept. The
    /// transfer leaves its handle here, whether it finished, was cancelled or never started, so
    /// an h2c transfer that was opening a connection stops holding the others back here too.
    func removeActive(_ handle: CurlEasyHandle) {
        handle.withTransfer { $0.connection.release(handle.connections, by: ObjectIdentifier($0)) }
        let index = handle.activeIndex
        guard active.indices.contains(index), active[index] === handle else { return }
        let last = active.removeLast()
        if last !== handle {
            active[index] = last
            last.activeIndex = index
        }
        handle.activeIndex = -1
        handle.transfer = nil
    }

    /// Takes `handle` out of the multi handle and keeps it for another transfer. Its plain
    /// setup is kept only if `keepingSetup` (see
    /// ``ResendDecision/keepsHandleSetup(transferSucceeded:connectionsChosen:)``); a cancelled
    /// transfer's handle is reset.
    func remove(_ handle: CurlEasyHandle, keepingSetup: Bool = false) {
        if !keepingSetup { handle.holdsPlainSetup = false }
        if handle.opensWebSocket {
            withWebSocketIO { _ = curl_multi_remove_handle(webSocketMulti, handle.raw) }
        } else {
            curl_multi_remove_handle(multi, handle.raw)
        }
        handle.opensWebSocket = false
        if case .file = cookies { handle.set(CURLOPT_COOKIELIST, "FLUSH") }
        removeActive(handle)
        recycle(handle)
    }

    /// Keeps `handle` for another transfer: reset, unless it holds a plain transfer's setup
    /// (see ``CurlTransfer/isPlain``), which the next plain transfer reuses.
    func recycle(_ handle: CurlEasyHandle) {
        guard idleHandles.count < Self.maximumIdleHandles else { return }
        if handle.holdsPlainSetup { handle.errorBuffer[0] = 0 } else { handle.reset() }
        idleHandles.append(handle)
    }

    /// A handle that ran no transfer, for a transfer that is not safe on one that did where the
    /// running libcurl ``renewsHandles``: a kept one renewed, so that no more handles are kept
    /// than transfers ran at once, else a new one. `nil` when libcurl could not make one.
    func handleThatRanNoTransfer() -> CurlEasyHandle? {
        guard let kept = idleHandles.popLast() else { return CurlEasyHandle(connections: connections) }
        return kept.renew() ? kept : nil
    }

    /// Clears every option of `handle`: a reset, or a fresh easy handle where the running libcurl
    /// needs one (``renewsHandles``). False when no handle could be made.
    func clear(_ handle: CurlEasyHandle) -> Bool {
        guard renewsHandles else {
            handle.reset()
            return true
        }
        return handle.renew()
    }
}
