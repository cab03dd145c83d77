import Crypto
import Foundation
import StorekeeperApps
import StorekeeperStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files `backup` and `restore` handle: the SQLite database the configuration names, a
/// copy's checksum file (`sha256sum`'s format, so `sha256sum -c FILE.sha256` checks it in the
/// copy's directory), and the steps that make a file appear whole or not at all.
enum BackupFiles {
    /// Where the PostgreSQL recipes are.
    static let postgresRecipe =
        "PostgreSQL is backed up with its own tools: `pg_dump -Fc` for a small install, `pg_basebackup` with WAL archiving "
        + "for point-in-time recovery (see docs/backups.md)"

    /// The SQLite database file of `configuration`; a PostgreSQL URL, or a database in memory,
    /// is a usage error that points at the recipes.
    static func sqliteDatabase(_ configuration: ServerConfiguration, command: String) throws(CLIFailure) -> String {
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw .usage("\(error)")
        }
        switch location {
        case .sqlite(let path): return URL(fileURLWithPath: path).standardizedFileURL.path
        case .sqliteInMemory: throw .usage("a database in memory has nothing to \(command)")
        case .postgres: throw .usage("`storekeeper \(command)` copies an SQLite database only. \(postgresRecipe).")
        }
    }

    /// The checksum file of the copy at `path`.
    static func checksumFile(of path: String) -> String { path + ".sha256" }

    /// The SHA-256 of the file at `path`, in lower-case hex, read a mebibyte at a time.
    static func sha256(of path: String) throws(CLIFailure) -> String {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var hash = SHA256()
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
            return hash.finalize().map { String(format: "%02x", $0) }.joined()
        } catch {
            throw .usage("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Copies the file at `source` to `destination` (created `0600`, flushed) and returns the
    /// SHA-256 of the bytes copied: what is checked is exactly what was written.
    static func copyHashing(_ source: String, to destination: String) throws(CLIFailure) -> String {
        let input: FileHandle
        do {
            input = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
        } catch {
            throw .usage("cannot read \(source): \(error.localizedDescription)")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination, contents: nil, attributes: [.posixPermissions: 0o600]),
            let output = FileHandle(forWritingAtPath: destination)
        else { throw CLIFailure(exitCode: 1, message: "cannot write \(destination)") }
        defer { try? output.close() }
        var hash = SHA256()
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                hash.update(data: chunk)
                try output.write(contentsOf: chunk)
            }
            try output.synchronize()
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot copy \(source) to \(destination): \(error.localizedDescription)")
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The line `sha256sum` writes for the copy at `path`: the digest, two spaces, the file's
    /// name (without its directory, so that the pair can move together).
    static func checksumLine(sha256: String, of path: String) -> String {
        "\(sha256)  \(URL(fileURLWithPath: path).lastPathComponent)\n"
    }

    /// The digest a checksum file states for the copy at `path`: nil when there is no such
    /// file; a file that is not one `sha256sum` line for that name is a usage error.
    static func recordedSHA256(of path: String) throws(CLIFailure) -> String? {
        let file = checksumFile(of: path)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        let text = String(decoding: try InputFile.read(file), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard lines.count == 1, let line = lines.first else { throw .usage("\(file) is not one `sha256sum` line") }
        let fields = line.split(separator: " ", maxSplits: 1)
        let digest = fields.first.map { $0.lowercased() } ?? ""
        let named = fields.count == 2 ? fields[1].trimmingCharacters(in: .whitespaces) : ""
        guard digest.count == 64, digest.allSatisfy(\.isHexDigit), [name, "*" + name].contains(named) else {
            throw .usage("\(file) is not a `sha256sum` line for \(name)")
        }
        return digest
    }

    /// Writes `contents` to `path` through a temporary name beside it, flushed before the
    /// rename: `path` never holds half a file.
    static func writeWhole(_ contents: Data, to path: String) throws(CLIFailure) {
        let partial = partialName(for: path)
        try? FileManager.default.removeItem(atPath: partial)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(atPath: partial) } }
        guard FileManager.default.createFile(atPath: partial, contents: contents, attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure(exitCode: 1, message: "cannot write \(partial)")
        }
        try flush(partial)
        try replace(path, with: partial)
        renamed = true
    }

    /// A temporary name beside `path` for this process: hidden, and never a name a copy has.
    static func partialName(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
    }

    /// Renames `source` to `path`, replacing whatever is there (`rename(2)`: at once, on one
    /// file system), then flushes the directory so that the new name survives a power cut.
    static func replace(_ path: String, with source: String) throws(CLIFailure) {
        guard rename(source, path) == 0 else {
            throw CLIFailure(exitCode: 1, message: "cannot rename \(source) to \(path): \(String(cString: strerror(errno)))")
        }
        flushDirectory(of: path)
    }

    /// Moves `source` to `path`, which must not exist.
    static func move(_ source: String, to path: String) throws(CLIFailure) {
        guard !FileManager.default.fileExists(atPath: path) else { throw CLIFailure(exitCode: 1, message: "\(path) is in the way") }
        try replace(path, with: source)
    }

    /// Flushes the file at `path` to the disk.
    static func flush(_ path: String) throws(CLIFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        guard fd >= 0, fsync(fd) == 0 else {
            throw CLIFailure(exitCode: 1, message: "cannot flush \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Flushes the directory holding `path` (its entries), as far as the file system allows.
    static func flushDirectory(of path: String) {
        let fd = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The size of the file at `path` (0 when it is missing).
    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// A moment in a file name: `20261206T083000Z`.
    static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0,
            parts.second ?? 0)
    }
}
