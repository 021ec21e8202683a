#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
