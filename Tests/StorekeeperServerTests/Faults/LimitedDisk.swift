import Foundation
import StorekeeperTestSupport

/// Room for a server's data directory that a test can run out of and give back. Where the test
/// may mount file systems (root with `CAP_SYS_ADMIN`), a small tmpfs that a filler file fills to
/// the last byte, as a disk fills; elsewhere the server's file-size limit lowered to nothing with
/// `prlimit` (writes fail with `EFBIG`, as the storage refusing them), then raised again
/// (`STOREKEEPER_TEST_DISK=limit` chooses it everywhere).
final class LimitedDisk: Sendable {
    enum Kind: String, Sendable {
        case tmpfs = "a tmpfs filled to the last byte"
        case fileSizeLimit = "the server's file-size limit (RLIMIT_FSIZE) lowered to nothing"
    }

    let directory: URL
    let kind: Kind
    private var filler: URL { directory.appendingPathComponent("filler") }

    /// Room for `megabytes` (a tmpfs of that size).
    init(directory: URL, megabytes: Int) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // STOREKEEPER_TEST_DISK=limit takes the fallback even where mounting works.
        let mounts = ProcessInfo.processInfo.environment["STOREKEEPER_TEST_DISK"] != "limit"
        kind = mounts && Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory.path]) ? .tmpfs : .fileSizeLimit
    }

    /// Runs out of room: the disk full, or the limit lowered for `pid`.
    func exhaust(pid: Int32) throws {
        switch kind {
        case .tmpfs:
            // Write until the file system refuses: then not one more page fits.
            _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
            let handle = try FileHandle(forWritingTo: filler)
            defer { try? handle.close() }
            let chunk = Data(count: 64 * 1024)
            while (try? handle.write(contentsOf: chunk)) != nil {}
            for size in [4096, 512, 1] { while (try? handle.write(contentsOf: Data(count: size))) != nil {} }
        case .fileSizeLimit:
            guard Self.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=1:"]) else { throw CocoaError(.fileWriteNoPermission) }
        }
    }

    /// Gives the room back.
    func restore(pid: Int32) throws {
        switch kind {
        case .tmpfs: try FileManager.default.removeItem(at: filler)
        case .fileSizeLimit:
            guard Self.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=unlimited:"]) else { throw CocoaError(.fileWriteNoPermission) }
        }
    }

    /// The files of the directory and their sizes in megabytes, largest first: what took the
    /// room, when a run goes wrong.
    var usage: String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let sizes = names.map { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return (name, (attributes?[.size] as? Int) ?? 0)
        }
        return sizes.sorted { $0.1 > $1.1 }.map { "\($0.0) \(String(format: "%.1f", Double($0.1) / 1_048_576)) MB" }.joined(separator: ", ")
    }

    /// Unmounts the tmpfs (its files go with it).
    func remove() {
        if kind == .tmpfs { _ = Self.run("/usr/bin/umount", ["-l", directory.path]) }
        try? FileManager.default.removeItem(at: directory)
    }

    @discardableResult
    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return false }
        guard let process = try? ChildProcess(tool, arguments) else { return false }
        return process.terminationStatus == 0
    }
}
