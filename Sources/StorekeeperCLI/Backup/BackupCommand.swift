import ArgumentParser
import Foundation
import StorekeeperStore

/// `storekeeper backup --to FILE`: a consistent copy of the SQLite database, taken while a
/// server keeps writing to it, checked before it is reported, with its SHA-256 in `FILE.sha256`.
///
/// The copy is written under a temporary name beside `FILE` and renamed at the end: `FILE` is
/// either a whole, checked copy or absent. PostgreSQL is refused (exit 2) with the recipe for
/// its own tools.
public struct BackupCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database while the server runs, check the copy and record its SHA-256.",
        discussion: """
            Prints {"file", "bytes", "sha256", "schemaVersion", "takenAt", "tables", "integrity"} as JSON. \
            Restore it with `storekeeper restore --from FILE`. See docs/backups.md.
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(name: .customLong("to"), help: "The file to write the copy to (its checksum goes to FILE.sha256).")
    var destination: String

    @Flag(help: "Replace FILE (and FILE.sha256) when it exists.")
    var force = false

    public init() {}

    /// What a backup prints.
    struct Summary: Encodable {
        var file: String
        var bytes: Int
        var sha256: String
        var schemaVersion: Int
        var takenAt: Date
        var tables: [String: Int]
        var integrity = "ok"
        var database: String
    }

    public func run() async throws {
        let configuration = try options.configuration()
        let database = try BackupFiles.sqliteDatabase(configuration, command: "backup")
        guard BackupFiles.size(of: database) > 0 else { throw CLIFailure.usage("there is no database at \(database) to back up") }
        let target = URL(fileURLWithPath: destination).standardizedFileURL.path
        let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure.usage("the directory \(directory) does not exist")
        }
        guard target != database else { throw CLIFailure.usage("--to names the database itself") }
        if FileManager.default.fileExists(atPath: target), !force {
            throw CLIFailure.usage("\(target) exists; pass --force to replace it")
        }
        let summary = try copy(database, to: target, takenAt: Date())
        let encoder = JSONOutput.encoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let json = try? encoder.encode(summary) else { throw CLIFailure(exitCode: 1, message: "cannot encode the summary") }
        Console.out(json + Data("\n".utf8))
    }

    /// Copies, checks, flushes, names the copy `target` and writes its checksum file.
    private func copy(_ database: String, to target: String, takenAt: Date) throws(CLIFailure) -> Summary {
        let partial = BackupFiles.partialName(for: target)
        try? FileManager.default.removeItem(atPath: partial)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(atPath: partial) } }
        // Made empty and private first: `VACUUM INTO` fills an empty file and keeps its mode,
        // and the copy holds everything the database does.
        guard FileManager.default.createFile(atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure.usage("cannot write in \(URL(fileURLWithPath: target).deletingLastPathComponent().path)")
        }
        do {
            try SQLiteFileCopy.copy(database: database, to: partial)
        } catch {
            throw CLIFailure(exitCode: 1, message: "the copy of \(database) failed: \(error)")
        }
        let contents: SQLiteFileCopy.Contents
        do {
            switch try SQLiteFileCopy.check(partial) {
            case .success(let found): contents = found
            case .failure(let problem): throw CLIFailure(exitCode: 1, message: "the copy failed its check (\(problem)); nothing was written")
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot check the copy: \(error)")
        }
        try BackupFiles.flush(partial)
        let sha256 = try BackupFiles.sha256(of: partial)
        let bytes = BackupFiles.size(of: partial)
        try BackupFiles.replace(target, with: partial)
        renamed = true
        try BackupFiles.writeWhole(Data(BackupFiles.checksumLine(sha256: sha256, of: target).utf8), to: BackupFiles.checksumFile(of: target))
        return Summary(
            file: target, bytes: bytes, sha256: sha256, schemaVersion: contents.schemaVersion, takenAt: takenAt, tables: contents.tableCounts,
            database: database)
    }
}
