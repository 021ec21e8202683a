#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCurl

// The POSIX file calls under names no type here shadows: inside a type with its own `read`,
// `write` or `open` method, the bare name means the method. At file scope the bare names are
// the C functions, so the same code compiles against Glibc and Darwin alike.

func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// What a new thread runs, passed through `pthread_create`'s one pointer.
private final class ThreadEntry {
    let name: String
    let body: () -> Void

    init(name: String, body: @escaping () -> Void) {
        self.name = name
        self.body = body
    }

    /// Names the calling thread (from inside, the one way both Linux and Darwin allow) and runs
    /// the body; takes back the reference `startThread` passed.
    static func run(_ pointer: UnsafeMutableRawPointer) {
        let entry = Unmanaged<ThreadEntry>.fromOpaque(pointer).takeRetainedValue()
        ccurl_name_current_thread(entry.name)
        entry.body()
    }
}

/// Starts a detached system thread named `name` (at most 15 bytes, Linux's limit) that runs
/// `body`, and returns it.
func startThread(named name: String, _ body: @escaping () -> Void) -> pthread_t {
    let entry = Unmanaged.passRetained(ThreadEntry(name: name, body: body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    let result = pthread_create(
        &thread, nil,
        { pointer in
            ThreadEntry.run(pointer)
            return nil
        }, entry)
    #else
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { pointer in
            ThreadEntry.run(pointer!)
            return nil
        }, entry)
    #endif
    precondition(result == 0, "cannot start the thread \(name): error \(result)")
    #if canImport(Darwin)
    pthread_detach(thread!)
    return thread!
    #else
    pthread_detach(thread)
    return thread
    #endif
}

/// Whether the calling thread is `thread`.
func isCurrentThread(_ thread: pthread_t) -> Bool {
    pthread_equal(thread, pthread_self()) != 0
}
