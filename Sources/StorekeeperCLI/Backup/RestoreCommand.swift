import ArgumentParser
import Foundation
import StorekeeperStore

/// `storekeeper restore --from FILE [--data-dir DIR]`: puts a copy made by `storekeeper backup`
/// in place as the data directory's database, once it has proved sound.
///
/// In order: the copy's checksum file (`FILE.sha256`) must match, SQLite must find the copy
/// whole (`PRAGMA integrity_check`), and its schema must not be newer than this build knows.
/// A server using the directory holds its lock (``DataDirectoryLock``): the restore then
/// refuses, as it does when the directory already has a database and `--force` is not given.
/// A database it replaces is moved aside with its `-wal` and `-shm`
/// (`storekeeper.sqlite.before-restore-<time>`), never deleted.
///
/// Exit codes: 0 restored; 1 the copy is damaged, altered or too new; 2 a usage error, an
/// unreadable file, a running server, or a database in the way without `--force`.
public struct RestoreCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Check a copy made by `storekeeper backup` and put it in place as the data directory's database.",
        discussion: "Stop the server first: a running server's directory is refused. See docs/backups.md."
    )

    @OptionGroup var options: ServeOptions

    @Option(name: .customLong("from"), help: "The copy to restore (its checksum is read from FILE.sha256).")
    var source: String

    @Flag(help: "Restore although FILE.sha256 is missing (a checksum file that is there is always checked).")
    var noChecksum = false

    @Flag(help: "Replace a database the directory already has (it is moved aside, not deleted).")
    var force = false

    public init() {}

    /// What a restore prints.
    struct Summary: Encodable {
        var database: String
        var from: String
        var sha256: String
        /// `matched`, or `absent` when `--no-checksum` let a copy without one through.
        var checksum: String
        var schemaVersion: Int
        var tables: [String: Int]
        var integrity = "ok"
        /// Where the database this replaced went (the file and its companions).
        var movedAside: [String]
    }

    public func run() async throws {
        let configuration = try options.configuration()
        let database = try BackupFiles.sqliteDatabase(configuration, command: "restore")
        let copy = URL(fileURLWithPath: source).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: copy) else { throw CLIFailure.usage("cannot read \(copy)") }
        let recorded = try BackupFiles.recordedSHA256(of: copy)
        if recorded == nil, !noChecksum {
            throw CLIFailure.usage(
                "\(BackupFiles.checksumFile(of: copy)) is missing: pass --no-checksum to restore a copy without its checksum")
        }
        let directory = URL(fileURLWithPath: database).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIFailure.usage("cannot create the data directory \(directory): \(error.localizedDescription)")
        }
        let lock: DataDirectoryLock
        do {
            lock = try DataDirectoryLock(databasePath: database, mode: .exclusive)
        } catch {
            throw CLIFailure.usage("refusing to restore: \((error as? StoreError)?.message ?? "\(error)")")
        }
        defer { lock.release() }
        let summary = try restore(copy, recorded: recorded, into: database)
        guard let json = try? JSONOutput.encoder().encode(summary) else { throw CLIFailure(exitCode: 1, message: "cannot encode the summary") }
        Console.out(json + Data("\n".utf8))
    }

    /// Stages the copy beside the database, checks the staged bytes, moves the old database
    /// aside and renames the staged copy into its place. Called with the lock held.
    private func restore(_ copy: String, recorded: String?, into database: String) throws(CLIFailure) -> Summary {
        let staged = BackupFiles.partialName(for: database)
        try? FileManager.default.removeItem(atPath: staged)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(atPath: staged) } }
        let sha256 = try BackupFiles.copyHashing(copy, to: staged)
        if let recorded, recorded != sha256 {
            throw CLIFailure(
                exitCode: 1,
                message: "\(copy) does not match \(BackupFiles.checksumFile(of: copy)) (the file's SHA-256 is \(sha256)): not restored")
        }
        let contents = try Self.check(staged, named: copy)
        guard contents.schemaVersion <= SQLStore.latestSchemaVersion else {
            throw CLIFailure(
                exitCode: 1,
                message: "\(copy) has schema version \(contents.schemaVersion), newer than this build knows (\(SQLStore.latestSchemaVersion)): "
                    + "restore it with the version of storekeeper that made it")
        }
        let existing = Self.companions.map { database + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        if BackupFiles.size(of: database) > 0 || existing.count > 1, !force {
            throw CLIFailure.usage(
                "\(database) already exists: pass --force to restore over it (it is moved aside, with its -wal and -shm, not deleted)")
        }
        var movedAside: [String] = []
        let aside = Self.asideName(for: database)
        for file in existing {
            let target = aside + file.dropFirst(database.count)
            try BackupFiles.move(file, to: target)
            movedAside.append(target)
        }
        try BackupFiles.replace(database, with: staged)
        renamed = true
        return Summary(
            database: database, from: copy, sha256: sha256, checksum: recorded == nil ? "absent" : "matched", schemaVersion: contents.schemaVersion,
            tables: contents.tableCounts, movedAside: movedAside)
    }

    /// The database file and the files SQLite keeps beside it.
    private static let companions = ["", "-wal", "-shm", "-journal"]

    /// `storekeeper.sqlite.before-restore-20261206T083000Z`, with `-2`, `-3`… when taken.
    private static func asideName(for database: String) -> String {
        let base = "\(database).before-restore-\(BackupFiles.stamp(Date()))"
        var name = base
        var number = 2
        while companions.contains(where: { FileManager.default.fileExists(atPath: name + $0) }) {
            name = "\(base)-\(number)"
            number += 1
        }
        return name
    }

    /// The staged copy's contents, or exit 1 naming the copy it came from.
    private static func check(_ staged: String, named copy: String) throws(CLIFailure) -> SQLiteFileCopy.Contents {
        let result: Result<SQLiteFileCopy.Contents, SQLiteFileCopy.Problem>
        do {
            result = try SQLiteFileCopy.check(staged)
        } catch {
            throw CLIFailure.usage("cannot read the copy of \(copy): \(error)")
        }
        switch result {
        case .success(let contents): return contents
        case .failure(let problem):
            let reason = problem.reason.replacingOccurrences(of: staged, with: copy)
            throw CLIFailure(exitCode: 1, message: "\(copy) cannot be restored: \(problem.code.rawValue): \(reason)")
        }
    }
}
