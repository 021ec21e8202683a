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

/// The loop that owns the libcurl multi handle and every easy handle, run by one thread at a
/// time (the transfer thread).
///
/// Other threads hand it work through `inbox` (a locked queue) and wake it with
/// `curl_multi_wakeup`, the one libcurl call that is safe from any thread. It sleeps in
/// `curl_multi_poll` until a socket is ready, a libcurl timer is due, or it is woken; it never
/// polls on a timer of its own. Each transfer's promise is bound to the callback queue, so
/// completing it hands every observer to that queue: a drain block there completes the
/// finished transfers while the loop goes on.
///
/// With a callback queue, the loop has two threads, of which one leads (``LoopBaton``): when a
/// pass finishes a single transfer and nothing else is in flight, there is nothing for the loop
/// to go on with, so the leading thread hands the loop over to the other and completes the
/// transfer itself, on the callback queue (`DispatchQueue.sync`), instead of waking a callback
/// thread; requests the callbacks start are then taken when it leads again, without waking the
/// loop. With many transfers in flight, a drain block completes them as above, the loop never
/// pausing for callbacks.
///
/// Without a callback queue (``ConnectConfiguration/runsCallbacksOnTransferThread``), observers
/// run on the one loop thread, after each pass, and requests they start are taken from the inbox
/// before the loop sleeps again.
final class TransferLoop: @unchecked Sendable {
    // @unchecked: `multi` is set once; `inbox` is behind its mutex; everything under
    // "Transfer thread only" is touched by the leading thread alone, and the baton's lock
    // orders one leader's accesses before the next one's.
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
        /// Set while the loop is handed over to complete callbacks: a command queued then is
        /// reported to the baton, which decides whether the standby takes it
        /// (`LoopBaton.commandWaits`).
        var isUnled = false
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
    /// Transfers (active, on their handles) kept from libcurl while another transfer opens a
    /// connection to their origin that they will share (see ``SharedConnectionOpenings``).
    @exclusivity(unchecked) private var waiting: [WaitingTransfer] = []

    private struct WaitingTransfer {
        let handle: CurlEasyHandle
        let transfer: CurlTransfer
        let origin: String
    }
    /// Transfers finished in this pass of the loop, handed to the callback queue together.
    @exclusivity(unchecked) private var finished: [CompletionHandOff.Finished] = []
    private static let maximumIdleHandles = 256
    /// Every transfer gets an easy handle that ran no transfer before: the running libcurl keeps
    /// state across a handle's transfers that can crash it (see
    /// ``LibcurlDefects/keepsFreedHeaderAcrossTransfers``).
    private let renewsHandles = LibcurlDefects.running.keepsFreedHeaderAcrossTransfers
    /// The loop's threads: one, or two with a callback queue (see ``LoopBaton``).
    private let threads = Locked<[pthread_t]>([])
    /// Whether a loop thread may complete a lone finished transfer itself on the callback queue,
    /// the other leading meanwhile: with a callback queue other than the main queue, which runs
    /// its blocks on the main thread alone, so that its drains are always dispatched.
    private let completesOnLoopThread: Bool
    private let baton = LoopBaton()
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
        completesOnLoopThread = callbackQueue.map { $0 !== DispatchQueue.main } == true
        for _ in 0..<(completesOnLoopThread ? 2 : 1) {
            let thread = startThread(named: Self.threadName) { [self] in run() }
            threads.withLock { $0.append(thread) }
        }
    }

    /// Whether the calling thread is one of the loop's.
    var isLoopThread: Bool {
        threads.withLock { $0.contains { isCurrentThread($0) } }
    }

    /// Queues `command` and wakes the loop if it sleeps. Safe from any thread.
    ///
    /// Only the command that finds the loop asleep wakes it (a syscall): the loop drains the
    /// whole inbox when it wakes, so later commands ride on the wakeup already pending.
    func send(_ command: consuming Command) {
        // Moved into the inbox, not copied: a copy would retain the command's transfer.
        var command = Optional(command)
        let (mustWake, findsItUnled) = inbox.withLock { inbox -> (Bool, Bool) in
            inbox.commands.append(command.take().unsafelyUnwrapped)
            defer { inbox.loopIsAsleep = false }
            return (inbox.loopIsAsleep, inbox.isUnled)
        }
        if mustWake { curl_multi_wakeup(multi) }
        if _slowPath(findsItUnled) { baton.commandWaits(fromTheCompletingThread: isLoopThread) }
    }

    /// Moves every queued command into `taken`; with `sleepingIfEmpty`, marks the loop asleep when
    /// there are none, so the next `send` wakes it.
    ///
    /// `taken` and the inbox trade buffers, each emptied but keeping its capacity: copying the
    /// commands out and clearing the inbox's array allocated a new one on every pass. Not
    /// inlined: the loop takes commands at two places in each pass, which then share one copy
    /// of this code.
    @inline(never)
    private func takeCommands(into taken: inout [Command], sleepingIfEmpty: Bool = false) {
        taken.removeAllKeepingBuffer()
        inbox.withLock { inbox in
            swap(&taken, &inbox.commands)
            inbox.loopIsAsleep = sleepingIfEmpty && taken.isEmpty
            inbox.isUnled = false
        }
    }

    private func run() {
        while baton.lead() {
            guard leadUntilHandedOver() else {
                idleHandles.removeAll()
                curl_multi_cleanup(multi)
                if let share { curl_share_cleanup(share) }
                baton.stop()
                return
            }
            handOff.drainHere()
        }
    }

    /// Runs the loop while this thread leads: `true` once it has handed the loop over to
    /// complete finished transfers itself, `false` when the loop stops.
    private func leadUntilHandedOver() -> Bool {
        var stopping = false
        var running: Int32 = 0
        var commands: [Command] = []
        takeCommands(into: &commands)
        while true {
            // Each command is moved out of the list (reversed, then popped from the end) rather
            // than copied, which would retain its transfer only to release it again when the list
            // is emptied.
            commands.reverse()
            while let command = commands.popLast() {
                switch consume command {
                case .start(let transfer): start(transfer)
                case let other: if carryOut(other) { stopping = true }
                }
            }
            if _slowPath(stopping) {
                cancelAll()
                _ = deliverFinished(drainingHere: false)
                return false
            }
            curl_multi_perform(multi, &running)
            collectFinished()
            if _slowPath(!waiting.isEmpty) { releaseWaiting() }
            if deliverFinished(drainingHere: completesOnLoopThread && active.isEmpty && finished.count == 1) {
                let commandsWait = inbox.withLock { inbox -> Bool in
                    inbox.isUnled = true
                    return !inbox.commands.isEmpty
                }
                baton.handOverToComplete(commandsWait: commandsWait)
                return true
            }
            takeCommands(into: &commands, sleepingIfEmpty: true)
            if commands.isEmpty {
                curl_multi_poll(multi, nil, 0, 60_000, nil)
                takeCommands(into: &commands)
            }
        }
    }

    /// Carries out a command other than `.start` (the one every request sends, handled in the
    /// loop itself); `true` for `.stop`.
    @inline(never)
    private func carryOut(_ command: Command) -> Bool {
        switch command {
        case .start(let transfer): start(transfer)
        case .cancel(let transfer): cancel(transfer)
        case .resume(let transfer): resume(transfer)
        case .cancelAll: cancelAll()
        case .stop: return true
        }
        return false
    }

    private func start(_ transfer: CurlTransfer) {
        // Cancelled while it waited in the inbox: never start it.
        guard !transfer.promise.isCompleted else { return }
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
            failSetup(of: transfer, on: handle, error)
            return
        }
        addActive(handle, running: transfer)
        addToMulti(handle, running: transfer)
    }

    /// Fails `transfer`, whose options could not all be set on `handle`; the handle, set
    /// partly, is reset and kept for another transfer.
    private func failSetup(of transfer: CurlTransfer, on handle: CurlEasyHandle, _ error: ConnectError) {
        handle.holdsPlainSetup = false
        recycle(handle)
        transfer.finishSink(succeeded: false)
        deliver(transfer, .failure(error))
    }

    /// Hands `handle`, active for `transfer`, to the multi handle. If libcurl refuses it, the
    /// transfer fails and the handle is kept for another.
    private func addToMulti(_ handle: CurlEasyHandle, running transfer: CurlTransfer) {
        let code = curl_multi_add_handle(multi, handle.raw)
        guard code != CURLM_OK else { return }
        removeActive(handle)
        recycle(handle)
        let message = String(cString: curl_multi_strerror(code))
        deliver(transfer, .failure(ConnectError.transport(TransportFailure(kind: .other, message: message, requestSent: false, curlCode: Int(code.rawValue)))))
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
        handle.withTransfer {
            $0.settlePriorKnowledgeAsk(handle.connections)
            $0.settleOpening(handle.connections)
            $0.leaveConnection(handle.connections)
        }
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
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle else { continue }
            // Retained: removing it from the active handles may drop the loop's other reference
            // before it is kept for another transfer.
            guard let handle = CurlEasyHandle.owner(of: raw), let transfer = handle.transfer else { continue }
            collect(transfer, endedWith: message.pointee.data.result, on: handle)
        }
    }

    /// Delivers `transfer`, which libcurl ended with `code` on `handle`, or starts it over.
    private func collect(_ transfer: consuming CurlTransfer, endedWith code: CURLcode, on handle: CurlEasyHandle) {
        if _slowPath(code != CURLE_OK), restartsAfterFailure(code, handle, transfer) { return }
        let outcome = transfer.outcome(code: code, handle: handle)
        remove(handle, keepingSetup: ResendDecision.keepsHandleSetup(transferSucceeded: code == CURLE_OK, connectionsChosen: transfer.connectionsChosen))
        deliver(transfer, outcome)
    }

    /// Whether `transfer`, which libcurl ended with `code`, starts over instead of finishing: on
    /// a fresh connection when the one libcurl chose had unread bytes or spoke the wrong protocol,
    /// or after a framing error, as ``ResendDecision`` allows.
    @inline(never)
    private func restartsAfterFailure(_ code: CURLcode, _ handle: CurlEasyHandle, _ transfer: CurlTransfer) -> Bool {
        if transfer.waitsForConnectionTo != nil {  // stopped as it opened a connection
            restart(handle, transfer, after: .waitedForSharedConnection, resettingHandle: transfer.rewindsForReset())
            return true
        }
        if code == CURLE_ABORTED_BY_CALLBACK, transfer.needsFreshConnection {
            restart(handle, transfer, after: .connectionRefused, resettingHandle: transfer.rewindsForReset())
            return true
        }
        if code == CURLE_HTTP2, transfer.startsOverAfterFramingError() {  // its body rewound
            restart(handle, transfer, after: .connectionEnded(multiplexed: true), resettingHandle: true)
            return true
        }
        if transfer.startsOverOnDeadConnection(code, on: handle) {  // its body rewound
            restart(handle, transfer, after: .connectionEnded(multiplexed: transfer.connectionMultiplexed), resettingHandle: true)
            return true
        }
        return false
    }

    /// Starts `transfer` again after `cause`, on the connection
    /// ``ResendDecision/restartConnection(after:)`` says: the
    /// transport stopped it from going out on the one libcurl chose, or that connection died or
    /// the server refused its stream before any of the answer came (see
    /// ``CurlTransfer/startsOverAfterFramingError()`` and
    /// ``CurlTransfer/startsOverOnDeadConnection(_:on:)``).
    ///
    /// `resettingHandle`: the transfer's body was rewound (``CurlTransfer/rewindsForReset()``),
    /// so the handle is reset and the transfer's options set again. libcurl 7.88 keeps the count
    /// of the times it sent the request again across a remove and add, and refuses a sixth, so a
    /// transfer it resent before this restart would otherwise start over with fewer resends left
    /// than a new one. A body that cannot go out again keeps the handle's options as they are.
    private func restart(_ handle: CurlEasyHandle, _ transfer: CurlTransfer, after cause: ResendDecision.RestartCause, resettingHandle: Bool) {
        let connection = ResendDecision.restartConnection(after: cause)
        let waitsForConnectionTo = transfer.waitsForConnectionTo
        curl_multi_remove_handle(multi, handle.raw)
        if resettingHandle {
            guard clear(handle) else {
                removeActive(handle)
                failSetup(of: transfer, on: handle, ConnectError.transport(TransportFailure(.other, "curl_easy_init failed", requestSent: false)))
                return
            }
            do {
                try transfer.configure(handle, again: true)
            } catch {
                removeActive(handle)
                failSetup(of: transfer, on: handle, error)
                return
            }
            configureCookies(handle)
        }
        transfer.prepareForRestart(on: handle, connection)
        // Set either way: a handle that kept its options may carry an earlier restart's.
        handle.set(CURLOPT_FRESH_CONNECT, connection == .new ? 1 : 0)
        handle.holdsPlainSetup = false  // so that `recycle` resets the option
        if let origin = waitsForConnectionTo {
            waiting.append(WaitingTransfer(handle: handle, transfer: transfer, origin: origin))
        } else {
            addToMulti(handle, running: transfer)
        }
    }

    /// Hands to libcurl the waiting transfers whose origin's new connection is ready, or whose
    /// opener ended; forgets those that were cancelled meanwhile.
    private func releaseWaiting() {
        var stillWaiting: [WaitingTransfer] = []
        for entry in waiting where entry.handle.transfer === entry.transfer {
            if connections.openings.waits(for: entry.origin) {
                stillWaiting.append(entry)
            } else {
                addToMulti(entry.handle, running: entry.transfer)
            }
        }
        waiting = stillWaiting
    }

    /// Takes `handle` out of the multi handle and keeps it for another transfer. Its plain
    /// setup is kept only if `keepingSetup` (see ``ResendDecision/keepsHandleSetup(transferSucceeded:connectionsChosen:)``);
    /// a cancelled transfer's handle is reset.
    private func remove(_ handle: CurlEasyHandle, keepingSetup: Bool = false) {
        if !keepingSetup { handle.holdsPlainSetup = false }
        curl_multi_remove_handle(multi, handle.raw)
        if case .file = cookies { handle.set(CURLOPT_COOKIELIST, "FLUSH") }
        removeActive(handle)
        recycle(handle)
    }

    /// Keeps `handle` for another transfer: reset, unless it holds a plain transfer's setup
    /// (see ``CurlTransfer/isPlain``), which the next plain transfer reuses.
    private func recycle(_ handle: CurlEasyHandle) {
        guard idleHandles.count < Self.maximumIdleHandles else { return }
        if handle.holdsPlainSetup, !renewsHandles {
            handle.errorBuffer[0] = 0
        } else {
            guard clear(handle) else { return }
        }
        idleHandles.append(handle)
    }

    /// Clears every option of `handle`: a reset, or a fresh easy handle where the running libcurl
    /// needs one (``renewsHandles``). False when no handle could be made.
    private func clear(_ handle: CurlEasyHandle) -> Bool {
        guard renewsHandles else {
            handle.reset()
            return true
        }
        return handle.renew()
    }

    private func deliver(_ transfer: consuming CurlTransfer, _ outcome: consuming Result<ReceivedResponse, any Error>) {
        if let received = transfer.received {
            // Failed: what it received never leaves this thread.
            transfer.received = nil
            receivedResponses.reclaim(received)
        }
        finished.append(CompletionHandOff.Finished(transfer: transfer, outcome: outcome))
    }

    /// One hand-off for everything that finished in this pass: with many transfers in flight,
    /// waking a callback thread per transfer cost more than the callbacks themselves. Returns
    /// `true` when this thread is to run the drain itself, after handing the loop over.
    private func deliverFinished(drainingHere: Bool) -> Bool {
        guard !finished.isEmpty else { return false }
        // Transfers with progress reports complete behind them, on their own queue. Looked for
        // first: taking none out of the list would still rewrite it.
        if _slowPath(finished.contains(where: { $0.transfer.progressQueue != nil })) {
            completeBehindProgressReports()
            guard !finished.isEmpty else { return false }
        }
        guard drainingHere else {
            handOff.deliver(&finished)
            return false
        }
        return handOff.startsDrain(with: &finished)
    }

    /// Takes the finished transfers that report progress out of `finished` and completes each
    /// on its progress queue, after its final report.
    @inline(never)
    private func completeBehindProgressReports() {
        finished.removeAll { entry in
            let transfer = entry.transfer
            guard let progressQueue = transfer.progressQueue, let handler = transfer.request.progress else { return false }
            let final = transfer.latestProgress
            progressQueue.async { [handOff] in
                handler.report(final)
                handOff.complete(entry)
            }
            return true
        }
    }
}

/// `curl_global_init` must run once per process before any other thread uses libcurl.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    static func initialize() {
        _ = initialized
    }
}
