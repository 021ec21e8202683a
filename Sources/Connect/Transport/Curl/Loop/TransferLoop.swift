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
/// Other threads hand it work through `inbox` (a locked queue) and wake it through a pipe
/// (``LoopWakeup``). It drives libcurl with `curl_multi_socket_action` (``MultiSocketWatch``):
/// it sleeps (in an epoll set on Linux, in poll(2) elsewhere) until a socket libcurl waits on is
/// ready, libcurl's timer is due, or it is woken, and then has libcurl run the transfers on the ready sockets and those whose timer
/// is due, no others; it never polls on a timer of its own. Each transfer's promise is bound to
/// the callback queue, so completing it hands every observer to that queue: a drain block there
/// completes the finished transfers while the loop goes on.
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
        /// What the application asks of an open WebSocket (see ``CurlWebSocket``), boxed: with
        /// every payload one reference, a command is one word, moved through the inbox as a
        /// pointer (a wider payload made every request's commands costlier to move).
        case webSocket(WebSocketCommand)

        /// `command` for `connection`.
        static func webSocket(_ connection: CurlWebSocket, _ command: CurlWebSocket.Command) -> Command {
            .webSocket(WebSocketCommand(connection: connection, command: command))
        }
    }

    /// A WebSocket's command and its connection, in one reference (see ``Command/webSocket(_:)``).
    final class WebSocketCommand: Sendable {
        let connection: CurlWebSocket
        let command: CurlWebSocket.Command

        init(connection: CurlWebSocket, command: CurlWebSocket.Command) {
            self.connection = connection
            self.command = command
        }
    }

    let multi: UnsafeMutableRawPointer
    /// The sockets and timer of `multi`, as libcurl reports them.
    let multiSockets: MultiSocketWatch
    /// What wakes the loop's poll from another thread.
    let wakeup: LoopWakeup
    /// The cookie jar every transfer shares, when cookies are on. Used by this thread alone, so
    /// it needs none of libcurl's share locks.
    let share: UnsafeMutableRawPointer?
    let cookies: CookieStorage
    let inbox = Locked<Inbox>(Inbox())

    struct Inbox {
        var commands: [Command] = []
        /// Set by the loop just before it sleeps (see `waitForWork`): only then does a sender
        /// need to wake it.
        var loopIsAsleep = false
        /// Set while the loop is handed over to complete callbacks: a command queued then is
        /// reported to the baton, which decides whether the standby takes it
        /// (`LoopBaton.commandWaits`).
        var isUnled = false
    }
    let handOff: CompletionHandOff
    /// At most 64 kept: up to 80 KiB each (see ``ResponseBuffers``), held until the client goes.
    let responseBuffers = ResponseBuffersPool(limit: 64)
    /// The connections libcurl opens, as its socket callbacks report them.
    let connections: ConnectionTracker

    // MARK: Transfer thread only
    // `@exclusivity(unchecked)`: touched by the loop thread alone, one access at a time, so the
    // runtime's dynamic exclusivity checks (a thread-local lookup per access) only cost time.
    /// The handles in the multi handle, each holding its transfer; unordered (see `removeActive`).
    @exclusivity(unchecked) var active: [CurlEasyHandle] = []
    /// Handles kept for the next transfers, with a plain setup or reset (see ``recycle(_:)``).
    /// Where the running libcurl keeps a freed header across a handle's transfers
    /// (``renewsHandles``), only a transfer safe on a handle that ran one before takes one
    /// (``CurlTransfer/screensHeads``, ``CurlTransfer/receivesHTTP2FramesOnly``); any other
    /// gets a new handle.
    @exclusivity(unchecked) var idleHandles: [CurlEasyHandle] = []
    /// The transfers this pass of the loop settled, handed to `handOff` together at its end (see
    /// ``settle(_:_:)``).
    @exclusivity(unchecked) var settledInPass: [CompletionHandOff.Finished] = []
    /// Transfers (active, on their handles) kept from libcurl while another transfer opens a
    /// connection to their origin that they will share (see ``SharedConnectionOpenings``).
    @exclusivity(unchecked) var waiting: [WaitingTransfer] = []
    /// The handles this pass handed to libcurl, to note those left waiting for a connection (see
    /// ``noteQueuedTransfers()``).
    @exclusivity(unchecked) var addedInPass: [CurlEasyHandle] = []
    /// The transfers waiting in libcurl's queue for a connection, and their deadlines.
    @exclusivity(unchecked) var queued = QueueDeadlines<QueuedTransfer>()
    /// The transfers waiting in libcurl's queue whose connect timeout the loop moves on, and
    /// when next, where libcurl counts the wait toward it (see ``QueuedConnectClock``).
    @exclusivity(unchecked) var connectClocks = QueueDeadlines<QueuedConnectTimeout>()
    let extendsQueuedConnectTimeouts = LibcurlDefects.running.countsQueueWaitInConnectTimeout
    /// The commands taken from the inbox, whose buffer this list trades with the inbox's (see
    /// `takeCommands`): kept by the loop, not by a lead of one thread, so that the buffer stays
    /// in use across hand-overs instead of leaving with each, which had the next command's
    /// append allocate a new one.
    @exclusivity(unchecked) var takenCommands: [Command] = []

    /// Held by the loop while it runs WebSocket work (their connections and their multi
    /// handle), and released while it polls: a task that finds it free sends on an open
    /// WebSocket itself (``CurlWebSocket/sendOnCallersThread(_:_:)``). See `withWebSocketIO`.
    let webSocketIO = Locked<Void>(())
    /// Whether the loop holds `webSocketIO` now: its WebSocket work nests.
    @exclusivity(unchecked) var holdsWebSocketIO = false

    /// What the loop's poll waits on: the wake-up pipe, libcurl's sockets, and the WebSockets'
    /// (see TransferLoop+Waiting.swift).
    @exclusivity(unchecked) var polls: [pollfd] = []
    /// The WebSocket connections, from their handshake on (see TransferLoop+WebSockets.swift).
    @exclusivity(unchecked) var webSockets: [CurlWebSocket] = []
    /// The buffer every WebSocket reads into, made with the first.
    @exclusivity(unchecked) var webSocketReadBuffer: UnsafeMutableRawBufferPointer?
    /// The multi handle WebSocket connections are opened and kept in, made with the first (see
    /// TransferLoop+WebSockets.swift), with its sockets and timer.
    @exclusivity(unchecked) var webSocketMultiWatch: MultiSocketWatch?
    static let maximumIdleHandles = 256
    /// How many idle connections the connection cache keeps beyond those in use.
    let idleConnectionsKept: Int
    /// The connection cache's size (`CURLMOPT_MAXCONNECTS`), which grows with the transfers in
    /// flight: libcurl counts the connections in use in it too, and closes a connection that
    /// finishes a transfer rather than keep it once the cache is over its size, so with more
    /// transfers in flight than its size (long polls, event streams) no connection was reused.
    @exclusivity(unchecked) var connectionCacheSize: Int
    /// The running libcurl keeps state across a handle's transfers that can crash it (see
    /// ``LibcurlDefects/keepsFreedHeaderAcrossTransfers``): a transfer runs on a handle that
    /// ran one before only if its answers come as HTTP/2 frames alone or it screens its heads
    /// (``CurlTransfer/screensHeads``); any other gets a new handle, and a restart that resets
    /// its handle a renewed one.
    let renewsHandles = LibcurlDefects.running.keepsFreedHeaderAcrossTransfers
    /// The loop's threads: one, or two with a callback queue (see ``LoopBaton``).
    let threads = Locked<[pthread_t]>([])
    /// Whether a loop thread may complete a lone finished transfer itself on the callback queue,
    /// the other leading meanwhile: with a callback queue other than the main queue, which runs
    /// its blocks on the main thread alone, so that its drains are always dispatched.
    let completesOnLoopThread: Bool
    let baton = LoopBaton()

    /// Whether a loop thread may complete futures on `callbackQueue` itself (see
    /// ``completesOnLoopThread``): any queue but the main queue.
    ///
    /// Told by its label: on Linux each `DispatchQueue.main` is a new object around the one
    /// queue, so no identity comparison finds it.
    static func completesOnLoopThread(callbackQueue: DispatchQueue) -> Bool {
        callbackQueue.label != mainQueueLabel
    }

    /// The main queue's label, on every platform.
    private static let mainQueueLabel = DispatchQueue.main.label

    /// The transfer thread's name, as debuggers and `top -H` show it.
    static let threadName = "connect.curl"

    /// `callbackQueue`: where futures complete; `nil` completes them here, on the transfer thread
    /// (see ``ConnectConfiguration/runsCallbacksOnTransferThread``).
    init(
        maximumConnectionsPerHost: Int, callbackQueue: DispatchQueue?, cookies: CookieStorage = .none,
        alternativeServices: AlternativeServiceCache? = nil
    ) {
        CurlGlobal.initialize()
        multi = curl_multi_init()
        wakeup = LoopWakeup()
        multiSockets = MultiSocketWatch(multi, inEpollSet: true, wakeup: wakeup.readEnd)
        connections = ConnectionTracker(alternativeServices: alternativeServices, socketWatch: multiSockets)
        completesOnLoopThread = callbackQueue.map(Self.completesOnLoopThread(callbackQueue:)) == true
        handOff = CompletionHandOff(
            queue: callbackQueue, drainsFromPool: completesOnLoopThread, responseBuffers: responseBuffers)
        self.cookies = cookies
        if cookies == .none {
            share = nil
        } else {
            share = curl_share_init()
            ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        }
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost)
        // The connection cache: keep as many idle connections as may be open to a host at once,
        // beside those in use (see `connectionCacheSize`).
        idleConnectionsKept = max(maximumConnectionsPerHost, 16)
        connectionCacheSize = idleConnectionsKept
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connectionCacheSize)
        ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
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
    func enqueue(_ command: consuming Command) {
        // Moved into the inbox, not copied: a copy would retain the command's transfer.
        var command = Optional(command)
        let (mustWake, findsItUnled) = inbox.withLock { inbox -> (Bool, Bool) in
            inbox.commands.append(command.take().unsafelyUnwrapped)
            defer { inbox.loopIsAsleep = false }
            return (inbox.loopIsAsleep, inbox.isUnled)
        }
        if mustWake { wakeup.wake() }
        if _slowPath(findsItUnled) { baton.commandWaits(fromTheCompletingThread: isLoopThread) }
    }

    /// Moves every queued command into `taken`; with `sleepingIfEmpty`, marks the loop asleep when
    /// there are none, so the next `enqueue` wakes it.
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
        var ownDrain: CompletionDrain?
        while baton.lead() {
            guard leadUntilHandedOver() else {
                closeWebSockets()
                if let webSocketMultiWatch { withWebSocketIO { _ = curl_multi_cleanup(webSocketMultiWatch.multi) } }
                idleHandles.removeAll()
                curl_multi_cleanup(multi)
                if let share { curl_share_cleanup(share) }
                responseBuffers.recycler.freeKept()
                baton.stop()
                return
            }
            handOff.drainHere(as: &ownDrain)
        }
    }

    /// Runs the loop while this thread leads: `true` once it has handed the loop over to
    /// complete finished transfers itself, `false` when the loop stops.
    private func leadUntilHandedOver() -> Bool {
        var stopping = false
        takeCommands(into: &takenCommands)
        while true {
            // Each command is moved out of the list (reversed, then popped from the end) rather
            // than copied, which would retain its transfer only to release it again when the list
            // is emptied.
            takenCommands.reverse()
            while let command = takenCommands.popLast() {
                switch consume command {
                case .start(let transfer): start(transfer)
                case let other: if carryOut(other) { stopping = true }
                }
            }
            if _slowPath(stopping) {
                cancelAll()
                _ = handOff.handOver(&settledInPass, drainingHere: false)
                return false
            }
            multiSockets.act()
            collectFinished()
            // libcurl marks a transfer to run now with a timer of 0 ms: an HTTP/2 transfer whose
            // frames another transfer of its connection read, one that comes off its pending list
            // as another leaves. `act()` runs the marks its sockets made; those that collecting
            // finished transfers made run here, in the same pass. (Driven by `curl_multi_perform`,
            // libcurl dropped a mark made for a transfer that had already run in the same call:
            // an HTTP/2 answer read whole stayed unfinished until the transfer's connect timeout,
            // 10 s later, after a GOAWAY and among 64 streams on one connection.)
            if multiSockets.runTimerIfDue() { collectFinished() }
            if _slowPath(!waiting.isEmpty) { releaseWaiting() }
            if !addedInPass.isEmpty { noteQueuedTransfers() }
            if _slowPath(queued.earliest != nil) { endOverdueWaits() }
            if _slowPath(connectClocks.earliest != nil) { extendDueConnectTimeouts() }
            if !settledInPass.isEmpty, handOff.handOver(&settledInPass, drainingHere: drainsHere()) {
                let commandsWait = inbox.withLock { inbox -> Bool in
                    inbox.isUnled = true
                    return !inbox.commands.isEmpty
                }
                baton.handOverToComplete(commandsWait: commandsWait)
                return true
            }
            takeCommands(into: &takenCommands, sleepingIfEmpty: true)
            if takenCommands.isEmpty {
                waitForWork()
                takeCommands(into: &takenCommands)
            }
        }
    }

    /// Whether this thread is to complete the transfers this pass settled itself, handing the
    /// loop to its standby: a lone transfer with nothing else in flight, and only while the other
    /// thread stands by. The drain may continue a task that awaited the transfer (see
    /// ``AwaitingTaskExecutor``), which runs for as long as the app's code does: with the other
    /// thread still busy in a drain of its own, this one must not leave the loop unled.
    private func drainsHere() -> Bool {
        completesOnLoopThread && active.isEmpty && settledInPass.count == 1 && baton.hasStandby
    }

    /// Collects every transfer libcurl finished (see ``collect(_:endedWith:on:)``).
    func collectFinished(from multi: UnsafeMutableRawPointer? = nil) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi ?? self.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle else { continue }
            // Retained: removing it from the active handles may drop the loop's other reference
            // before it is kept for another transfer.
            guard let handle = CurlEasyHandle.owner(of: raw), let transfer = handle.transfer else { continue }
            collect(transfer, endedWith: message.pointee.data.result, on: handle)
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
        case .webSocket(let boxed): carryOut(boxed.command, for: boxed.connection)
        }
        return false
    }

    private func start(_ transfer: CurlTransfer) {
        // Cancelled while it waited in the inbox: never start it.
        guard !transfer.promise.isCompleted else { return }
        var takesUsedHandle = true
        if _slowPath(renewsHandles) {
            transfer.headScreen = HeadScreen(enabled: transfer.screensHeads)
            takesUsedHandle = transfer.headScreen.isEnabled || transfer.receivesHTTP2FramesOnly
        }
        guard
            let handle = takesUsedHandle
                ? idleHandles.popLast() ?? CurlEasyHandle(connections: connections) : handleThatRanNoTransfer()
        else {
            settle(
                transfer,
                .failure(ConnectError.transport(TransportFailure(.other, "curl_easy_init failed", requestSent: false))))
            return
        }
        transfer.received = responseBuffers.take()
        let isPlain = transfer.isPlain
        if handle.holdsPlainSetup, !isPlain { handle.reset() }
        do {
            let commonOptionsSet = handle.holdsPlainSetup
            try transfer.configure(handle)
            if !commonOptionsSet { configureCookies(handle) }
            // An http+unix URL and an advertised alternative are known only once configured (see
            // `CurlTransfer.isPlain`).
            handle.holdsPlainSetup = isPlain && transfer.ownUnixSocketPath == nil && transfer.alternativeRoute == nil
        } catch {
            failSetup(of: transfer, on: handle, error)
            return
        }
        addActive(handle, running: transfer)
        if _slowPath(active.count + idleConnectionsKept > connectionCacheSize) {
            connectionCacheSize = active.count + idleConnectionsKept
            ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connectionCacheSize)
        }
        addToMulti(handle, running: transfer)
    }

    /// Fails `transfer`, whose options could not all be set on `handle`; the handle, set
    /// partly, is reset and kept for another transfer.
    func failSetup(of transfer: CurlTransfer, on handle: CurlEasyHandle, _ error: ConnectError) {
        handle.holdsPlainSetup = false
        recycle(handle)
        transfer.finishSink(succeeded: false)
        settle(transfer, .failure(error))
    }

    /// Hands `handle`, active for `transfer`, to the multi handle. If libcurl refuses it, the
    /// transfer fails and the handle is kept for another.
    func addToMulti(_ handle: CurlEasyHandle, running transfer: CurlTransfer) {
        handle.opensWebSocket = transfer.options?.webSocket != nil
        var code = CURLM_OK
        if handle.opensWebSocket {
            withWebSocketIO { code = curl_multi_add_handle(webSocketMulti, handle.raw) }
        } else {
            code = curl_multi_add_handle(multi, handle.raw)
            if code == CURLM_OK { addedInPass.append(handle) }
        }
        guard code != CURLM_OK else { return }
        handle.opensWebSocket = false
        removeActive(handle)
        recycle(handle)
        let message = String(cString: curl_multi_strerror(code))
        settle(
            transfer,
            .failure(
                ConnectError.transport(
                    TransportFailure(kind: .other, message: message, requestSent: false, curlCode: Int(code.rawValue))))
        )
    }

    private func cancel(_ transfer: CurlTransfer) {
        guard let handle = activeHandle(running: transfer) else {
            if _slowPath(!webSockets.isEmpty) { cancelWebSocketOpening(transfer) }
            return
        }
        // The future has already failed with .cancelled; completing again is a no-op, but makes
        // sure nothing waits if the cancel came from elsewhere.
        stop(transfer, on: handle, failingWith: .cancelled)
    }

    /// Takes `transfer`, active on `handle`, from libcurl before it ended, and fails it with
    /// `error`: its file and its streamed body are closed.
    func stop(_ transfer: CurlTransfer, on handle: CurlEasyHandle, failingWith error: ConnectError) {
        remove(handle)
        transfer.finishSink(succeeded: false)
        transfer.stopBody()
        settle(transfer, .failure(error))
    }

    private func resume(_ transfer: CurlTransfer) {
        guard let handle = activeHandle(running: transfer) else { return }
        curl_easy_pause(handle.raw, ccurl_pause_continue)
    }

    private func cancelAll() {
        for case let transfer? in webSockets.map(\.openingTransfer) { cancelWebSocketOpening(transfer) }
        while let handle = active.last, let transfer = handle.transfer {
            stop(transfer, on: handle, failingWith: .cancelled)
        }
    }
}
