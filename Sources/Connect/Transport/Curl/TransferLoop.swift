import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConnectFutures
import Dispatch

/// The one thread that owns the libcurl multi handle and every easy handle.
///
/// Other threads hand it work through `inbox` (a locked queue) and wake it with
/// `curl_multi_wakeup`, the one libcurl call that is safe from any thread. It sleeps in
/// `curl_multi_poll` until a socket is ready, a libcurl timer is due, or it is woken; it never
/// polls on a timer of its own. Each transfer's promise is bound to the callback queue, so
/// completing it here hands every observer to that queue: no user code runs here, unless the
/// client has no callback queue (``ConnectConfiguration/runsCallbacksOnTransferThread``); then
/// observers run here, after each pass of the loop, and requests they start are taken from the
/// inbox before the loop sleeps again.
final class TransferLoop: @unchecked Sendable {
    // @unchecked: `multi` is set once; `inbox` is behind its mutex; everything under
    // "Transfer thread only" is touched by the loop thread alone.
    enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
        /// Unpause a transfer whose stream consumer caught up.
        case resume(CurlTransfer)
        case cancelAll
        case stop
    }

    private let multi: UnsafeMutableRawPointer
    /// The cookie jar every transfer shares, when cookies are on. Used by this thread alone, so
    /// it needs none of libcurl's share locks.
    private let share: UnsafeMutableRawPointer?
    private let cookies: CookieStorage
    private let inbox = Locked<Inbox>(Inbox())

    struct Inbox {
        var commands: [Command] = []
        /// Set by the loop just before it blocks in `curl_multi_poll`: only then does a sender
        /// need to wake it.
        var loopIsAsleep = false
    }
    private let handOff: CompletionHandOff
    /// At most 64 kept: up to 80 KiB each (see ``ReceivedResponse``), held until the client goes.
    private let receivedResponses = ReceivedResponsePool(limit: 64)
    /// The connections libcurl opens, as its socket callbacks report them.
    private let connections = ConnectionTracker()

    // MARK: Transfer thread only
    // `@exclusivity(unchecked)`: touched by the loop thread alone, one access at a time, so the
    // runtime's dynamic exclusivity checks (a thread-local lookup per access) only cost time.
    /// The handles in the multi handle, each holding its transfer; unordered (see `removeActive`).
    @exclusivity(unchecked) private var active: [CurlEasyHandle] = []
    @exclusivity(unchecked) private var idleHandles: [CurlEasyHandle] = []
    /// Transfers finished in this pass of the loop, handed to the callback queue together.
    @exclusivity(unchecked) private var finished: [CompletionHandOff.Finished] = []
    private static let maximumIdleHandles = 256
    /// The thread that runs the loop; set before any command can reach it.
    private(set) var thread: pthread_t!
    /// The transfer thread's name, as debuggers and `top -H` show it.
    static let threadName = "connect.curl"

    /// `callbackQueue`: where futures complete; `nil` completes them here, on the transfer thread
    /// (see ``ConnectConfiguration/runsCallbacksOnTransferThread``).
    init(maximumConnectionsPerHost: Int, callbackQueue: DispatchQueue?, cookies: CookieStorage = .none) {
        CurlGlobal.initialize()
        multi = curl_multi_init()
        handOff = CompletionHandOff(queue: callbackQueue, receivedResponses: receivedResponses)
        self.cookies = cookies
        if cookies == .none {
            share = nil
        } else {
            share = curl_share_init()
            ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        }
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost)
        // The connection cache: keep as many idle connections as may be open at once.
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(maximumConnectionsPerHost, 16))
        ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        thread = startThread(named: Self.threadName) { [self] in run() }
    }

    /// Queues `command` and wakes the loop if it sleeps. Safe from any thread.
    ///
    /// Only the command that finds the loop asleep wakes it (a syscall): the loop drains the
    /// whole inbox when it wakes, so later commands ride on the wakeup already pending.
    func send(_ command: Command) {
        let mustWake = inbox.withLock { inbox -> Bool in
            inbox.commands.append(command)
            defer { inbox.loopIsAsleep = false }
            return inbox.loopIsAsleep
        }
        if mustWake { curl_multi_wakeup(multi) }
    }

    /// Moves every queued command into `taken`; with `sleepingIfEmpty`, marks the loop asleep when
    /// there are none, so the next `send` wakes it.
    ///
    /// `taken` and the inbox trade buffers, each emptied but keeping its capacity: copying the
    /// commands out and clearing the inbox's array allocated a new one on every pass.
    private func takeCommands(into taken: inout [Command], sleepingIfEmpty: Bool = false) {
        taken.removeAll(keepingCapacity: true)
        inbox.withLock { inbox in
            swap(&taken, &inbox.commands)
            inbox.loopIsAsleep = sleepingIfEmpty && taken.isEmpty
        }
    }

    private func run() {
        var stopping = false
        var running: Int32 = 0
        var commands: [Command] = []
        takeCommands(into: &commands)
        while true {
            for command in commands {
                switch command {
                case .start(let transfer): start(transfer)
                case .cancel(let transfer): cancel(transfer)
                case .resume(let transfer): resume(transfer)
                case .cancelAll: cancelAll()
                case .stop: stopping = true
                }
            }
            if stopping {
                cancelAll()
                deliverFinished()
                break
            }
            curl_multi_perform(multi, &running)
            collectFinished()
            deliverFinished()
            takeCommands(into: &commands, sleepingIfEmpty: true)
            if commands.isEmpty {
                curl_multi_poll(multi, nil, 0, 60_000, nil)
                takeCommands(into: &commands)
            }
        }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }
    }

    private func start(_ transfer: CurlTransfer) {
        // Cancelled while it waited in the inbox: never start it.
        guard !transfer.promise.isCompleted else {
            transfer.owner = nil
            return
        }
        guard let handle = idleHandles.popLast() ?? CurlEasyHandle(connections: connections) else {
            deliver(transfer, .failure(ConnectError.transport(TransportFailure(.other, "curl_easy_init failed", requestSent: false))))
            return
        }
        transfer.received = receivedResponses.take()
        let isPlain = transfer.isPlain
        if handle.holdsPlainSetup, !isPlain { handle.reset() }
        do {
            let commonOptionsSet = handle.holdsPlainSetup
            try transfer.configure(handle)
            if !commonOptionsSet { configureCookies(handle) }
            handle.holdsPlainSetup = isPlain
        } catch {
            handle.holdsPlainSetup = false  // set partly: `recycle` resets it
            recycle(handle)
            transfer.finishSink(succeeded: false)
            deliver(transfer, .failure(error))
            return
        }
        addActive(handle, running: transfer)
        let code = curl_multi_add_handle(multi, handle.raw)
        if code != CURLM_OK {
            removeActive(handle)
            recycle(handle)
            let message = String(cString: curl_multi_strerror(code))
            deliver(transfer, .failure(ConnectError.transport(TransportFailure(kind: .other, message: message, requestSent: false, curlCode: Int(code.rawValue)))))
        }
    }

    private func cancel(_ transfer: CurlTransfer) {
        guard let handle = activeHandle(running: transfer) else { return }
        remove(handle)
        transfer.finishSink(succeeded: false)
        transfer.stopBody()
        // The future has already failed with .cancelled; completing again is a no-op, but makes
        // sure nothing waits if the cancel came from elsewhere.
        deliver(transfer, .failure(ConnectError.cancelled))
    }

    private func configureCookies(_ handle: CurlEasyHandle) {
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
    private func activeHandle(running transfer: CurlTransfer) -> CurlEasyHandle? {
        active.first { $0.transfer === transfer }
    }

    private func addActive(_ handle: CurlEasyHandle, running transfer: CurlTransfer) {
        handle.transfer = transfer
        handle.activeIndex = active.count
        active.append(handle)
    }

    /// Swaps the last active handle into `handle`'s place: constant time, order is not kept. The
    /// transfer leaves its handle here, whether it finished, was cancelled or never started, so
    /// an h2c transfer that was opening a connection stops holding the others back here too.
    private func removeActive(_ handle: CurlEasyHandle) {
        handle.transfer?.settlePriorKnowledgeAsk(handle.connections)
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

    private func resume(_ transfer: CurlTransfer) {
        guard let handle = activeHandle(running: transfer) else { return }
        curl_easy_pause(handle.raw, ccurl_pause_continue)
    }

    private func cancelAll() {
        while let handle = active.last, let transfer = handle.transfer {
            remove(handle)
            transfer.finishSink(succeeded: false)
            transfer.stopBody()
            deliver(transfer, .failure(ConnectError.cancelled))
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle,
                let handle = CurlEasyHandle.owner(of: raw), let transfer = handle.transfer
            else { continue }
            let code = message.pointee.data.result
            if code == CURLE_ABORTED_BY_CALLBACK, transfer.needsFreshConnection {
                restartOnFreshConnection(handle, transfer)
                continue
            }
            let outcome = transfer.outcome(code: code, handle: handle)
            remove(handle)
            deliver(transfer, outcome)
        }
    }

    /// Starts `transfer` again on a new connection: the one it was given had unread bytes
    /// waiting, and was shut down before anything was sent on it.
    private func restartOnFreshConnection(_ handle: CurlEasyHandle, _ transfer: CurlTransfer) {
        curl_multi_remove_handle(multi, handle.raw)
        transfer.prepareForRestart(on: handle)
        handle.set(CURLOPT_FRESH_CONNECT, 1)
        handle.holdsPlainSetup = false  // so that `recycle` resets the option
        let code = curl_multi_add_handle(multi, handle.raw)
        if code != CURLM_OK {
            removeActive(handle)
            recycle(handle)
            deliver(transfer, .failure(ConnectError.transport(TransportFailure(kind: .other, message: String(cString: curl_multi_strerror(code)), requestSent: false,
                                                                                curlCode: Int(code.rawValue)))))
        }
    }

    private func remove(_ handle: CurlEasyHandle) {
        curl_multi_remove_handle(multi, handle.raw)
        if case .file = cookies { handle.set(CURLOPT_COOKIELIST, "FLUSH") }
        removeActive(handle)
        recycle(handle)
    }

    /// Keeps `handle` for another transfer: reset, unless it holds a plain transfer's setup
    /// (see ``CurlTransfer/isPlain``), which the next plain transfer reuses.
    private func recycle(_ handle: CurlEasyHandle) {
        guard idleHandles.count < Self.maximumIdleHandles else { return }
        if handle.holdsPlainSetup {
            handle.errorBuffer[0] = 0
        } else {
            handle.reset()
        }
        idleHandles.append(handle)
    }

    private func deliver(_ transfer: CurlTransfer, _ outcome: Result<ReceivedResponse, any Error>) {
        if let received = transfer.received {
            // Failed: what it received never leaves this thread.
            transfer.received = nil
            receivedResponses.reclaim(received)
        }
        finished.append((transfer, outcome))
    }

    /// One hand-off for everything that finished in this pass: with many transfers in flight,
    /// waking a callback thread per transfer cost more than the callbacks themselves.
    private func deliverFinished() {
        guard !finished.isEmpty else { return }
        // Transfers with progress reports complete behind them, on their own queue.
        finished.removeAll { transfer, outcome in
            guard let progressQueue = transfer.progressQueue, let handler = transfer.request.progress else { return false }
            let final = transfer.latestProgress
            progressQueue.async { [handOff] in
                handler.report(final)
                handOff.complete(transfer, outcome)
            }
            return true
        }
        guard !finished.isEmpty else { return }
        handOff.deliver(finished)
        finished.removeAll(keepingCapacity: true)
    }
}

/// `curl_global_init` must run once per process before any other thread uses libcurl.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    static func initialize() {
        _ = initialized
    }
}
