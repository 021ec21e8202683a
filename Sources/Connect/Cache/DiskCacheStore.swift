import ConnectFutures
import Dispatch
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

/// Stored responses in files of a directory, bounded by a capacity in bytes, which survive the
/// process: one file per stored response, in ``CacheEntryFormat``, named `<32 hex digits>.entry`.
///
/// An index in memory (each file's URL, headers and size, read from the files' heads when the
/// store opens) answers which response a request may use; the body is read from its file on use.
/// A file is written under a temporary name (`.tmp`) and renamed when whole, so a process killed
/// mid-write leaves a `.tmp` file, removed at the next opening, never an entry that reads back
/// wrong; a file whose checksum, lengths or URL do not match is removed and counts as a miss.
/// The least recently used go first when a new one needs room; a file's modification time keeps
/// its last use across restarts.
///
/// Files are written and removed on a queue of the store's own, so that no caller (the transfer
/// thread, a callback) waits for the disk; until its file is written a response answers from
/// memory. Every client of a process that opens the same directory shares one store
/// (``opening(_:capacity:)``).
final class DiskCacheStore: CacheStore {
    /// What the index keeps of a stored response: its file, and the response itself until the
    /// file is written.
    private struct StoredFile: Sendable {
        var name: String
        var pending: CachedResponse?
    }

    let directory: URL
    let capacity: Int
    private let index: Locked<CacheIndex<StoredFile>>
    private let disk = DispatchQueue(label: "connect.cache.disk")

    /// The stores this process opened, by directory: clients that name the same directory share
    /// one index, which a second store would contradict.
    private static let opened = Locked<[String: DiskCacheStore]>([:])

    /// The store of `directory`, opened (and the directory created) if this process has not
    /// yet; a directory already open keeps the capacity it was opened with.
    static func opening(_ directory: URL, capacity: Int) throws -> DiskCacheStore {
        let key = directory.standardizedFileURL.path
        return try opened.withLock { opened in
            if let store = opened[key] { return store }
            let store = try DiskCacheStore(directory: directory, capacity: capacity)
            opened[key] = store
            return store
        }
    }

    /// Opens `directory` as a store of its own (``opening(_:capacity:)`` shares one): creates
    /// it, removes what a killed writer left and what is damaged, and indexes the entries from
    /// their heads, the least recently modified as the least recently used.
    init(directory: URL, capacity: Int) throws {
        self.directory = directory
        self.capacity = capacity
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var found: [(head: CacheEntryFormat.Head, name: String, modified: Date)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let path = directory.appendingPathComponent(name).path
            if name.hasSuffix(".tmp") {
                try? FileManager.default.removeItem(atPath: path)
                continue
            }
            guard name.hasSuffix(".entry") else { continue }
            var info = stat()
            guard stat(path, &info) == 0, let head = Self.head(atPath: path, size: Int(info.st_size)),
                head.fileLength == Int(info.st_size)
            else {
                try? FileManager.default.removeItem(atPath: path)
                continue
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            found.append((head, name, modified ?? .distantPast))
        }
        var index = CacheIndex<StoredFile>(capacity: capacity)
        var dropped: [StoredFile] = []
        for (head, name, _) in found.sorted(by: { $0.modified < $1.modified }) {
            dropped += index.insert(
                StoredFile(name: name), for: head.url, vary: CacheVariant.varyingFields(of: head.headers),
                varyingRequestHeaders: head.varyingRequestHeaders, size: head.fileLength)
        }
        self.index = Locked(index)
        removeFiles(dropped)
    }

    /// A file's head, read from its first 64 KiB, or from all of it when the head is longer.
    private static func head(atPath path: String, size: Int) -> CacheEntryFormat.Head? {
        let descriptor = systemOpen(path, O_RDONLY, 0)
        guard descriptor >= 0 else { return nil }
        defer { _ = systemClose(descriptor) }
        var first = [UInt8](repeating: 0, count: min(size, 64 << 10))
        var filled = 0
        while filled < first.count {
            let count = first.withUnsafeMutableBytes {
                systemRead(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            guard count > 0 else { break }
            filled += count
        }
        if let head = CacheEntryFormat.head(Array(first[..<filled])) { return head }
        guard size > filled, let whole = FileManager.default.contents(atPath: path) else { return nil }
        return CacheEntryFormat.head([UInt8](whole))
    }

    var byteCount: Int { index.withLock { $0.byteCount } }

    func response(for url: String, requestHeaders: [HTTPHeader]) -> CachedResponse? {
        guard let found = index.withLock({ $0.use(url, requestHeaders: requestHeaders) }) else { return nil }
        if let pending = found.pending { return pending }
        let path = directory.appendingPathComponent(found.name).path
        guard let data = FileManager.default.contents(atPath: path),
            let response = CacheEntryFormat.decoded([UInt8](data)), response.url == url
        else {
            // Damaged, or changed behind the store's back: a miss, and the file goes.
            _ = index.withLock { $0.remove(url) { $0.name == found.name } }
            removeFiles([found])
            return nil
        }
        disk.async { try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path) }
        return response
    }

    func store(_ response: CachedResponse) {
        let bytes = CacheEntryFormat.encoded(response)
        let file = StoredFile(name: Self.newFileName(), pending: response)
        let dropped = index.withLock {
            $0.insert(
                file, for: response.url, vary: response.vary, varyingRequestHeaders: response.varyingRequestHeaders,
                size: bytes.count)
        }
        if bytes.count <= capacity {
            disk.async { [self] in write(bytes, to: file.name, for: response.url) }
        }
        removeFiles(dropped)
    }

    /// Writes an entry's file under a temporary name and renames it when whole; from then on it
    /// answers from the file. A file whose entry was dropped meanwhile goes at once.
    private func write(_ bytes: [UInt8], to name: String, for url: String) {
        let temporary = directory.appendingPathComponent(name + ".tmp")
        let final = directory.appendingPathComponent(name)
        let written =
            FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes))
            && (try? FileManager.default.moveItem(at: temporary, to: final)) != nil
        // Unwritten (a full disk, a directory removed), the response stays in memory.
        let indexed = index.withLock { index in
            index.update(url, where: { $0.name == name }) { if written { $0.pending = nil } }
        }
        if !written { try? FileManager.default.removeItem(at: temporary) }
        if !indexed { try? FileManager.default.removeItem(at: final) }
    }

    func remove(_ url: String) {
        removeFiles(index.withLock { $0.remove(url) })
    }

    func removeAll() {
        index.withLock { $0.removeAll() }
        disk.async { [directory] in
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            where name.hasSuffix(".entry") || name.hasSuffix(".tmp") {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    /// Waits until every write and removal asked for so far is done.
    func flush() {
        disk.sync {}
    }

    /// Removes the files on the store's queue, after any write of theirs still queued.
    private func removeFiles(_ files: [StoredFile]) {
        guard !files.isEmpty else { return }
        disk.async { [directory] in
            for file in files { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file.name)) }
        }
    }

    /// 32 random hex digits and `.entry`.
    private static func newFileName() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return digits.joined() + ".entry"
    }
}
