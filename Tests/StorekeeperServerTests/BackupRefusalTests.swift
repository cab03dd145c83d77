import Foundation
import StorekeeperStore
import StorekeeperTestSupport
import Testing

/// What `storekeeper backup` and `storekeeper restore` refuse, each with its exit code and a
/// message, never a crash and never a half-restored directory.
@Suite("Backup and restore refusals", .serialized)
struct BackupRefusalTests {
    /// A temporary directory with a migrated database in `data/` and a checked copy of it
    /// (`copy.sqlite`, `copy.sqlite.sha256`), removed afterwards.
    private func withCopy(_ body: (URL, String) async throws -> Void) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-backup-refusal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        try await SQLStore.withStore(.sqlite(path: data.appendingPathComponent("storekeeper.sqlite").path), logger: BackupRestoreTests.logger) {
            _ in
        }
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let backup = try await BackupRestoreTests.storekeeper(["backup", "--data-dir", data.path, "--to", copy])
        try #require(backup.status == 0, "backup failed: \(backup.errorText)")
        try await body(directory, copy)
    }

    /// Restores `copy` into a fresh directory under `directory` and expects the refusal
    /// `status` with `message` in it, and nothing left in the directory but its lock file.
    private func expectRefused(
        _ copy: String, in directory: URL, extra: [String] = [], status: Int32, message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let target = directory.appendingPathComponent("target-\(UUID().uuidString)")
        let result = try await BackupRestoreTests.storekeeper(["restore", "--from", copy, "--data-dir", target.path] + extra)
        #expect(result.status == status, "\(result.errorText)", sourceLocation: sourceLocation)
        #expect(result.errorText.contains(message), "\(result.errorText)", sourceLocation: sourceLocation)
        #expect(!result.errorText.contains("Fatal error"), sourceLocation: sourceLocation)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: target.path)) ?? []
        #expect(left.allSatisfy { $0 == "storekeeper.lock" }, "left behind: \(left)", sourceLocation: sourceLocation)
    }

    @Test("a copy whose bytes changed, a truncated copy, a file that is not SQLite and a wrong checksum are refused")
    func damagedCopiesAreRefused() async throws {
        try await withCopy { directory, copy in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            // The first byte of page 2, a b-tree page's type: flipped, SQLite finds it malformed.
            var flipped = bytes
            flipped[pageSize] ^= 0xFF
            let flippedCopy = directory.appendingPathComponent("flipped.sqlite").path
            try flipped.write(to: URL(fileURLWithPath: flippedCopy))
            try Data(
                try String(contentsOfFile: copy + ".sha256", encoding: .utf8).replacingOccurrences(of: "copy.sqlite", with: "flipped.sqlite").utf8
            )
            .write(to: URL(fileURLWithPath: flippedCopy + ".sha256"))
            try await expectRefused(flippedCopy, in: directory, status: 1, message: "does not match")
            // Without its checksum file, SQLite's own check finds the damage.
            try FileManager.default.removeItem(atPath: flippedCopy + ".sha256")
            try await expectRefused(flippedCopy, in: directory, extra: ["--no-checksum"], status: 1, message: "cannot be restored")

            let truncated = directory.appendingPathComponent("truncated.sqlite").path
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
            try await expectRefused(truncated, in: directory, extra: ["--no-checksum"], status: 1, message: "cannot be restored")

            let text = directory.appendingPathComponent("notes.sqlite").path
            try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: text))
            try await expectRefused(text, in: directory, extra: ["--no-checksum"], status: 1, message: "not an SQLite database")

            let empty = directory.appendingPathComponent("empty.sqlite").path
            try Data().write(to: URL(fileURLWithPath: empty))
            try await expectRefused(empty, in: directory, extra: ["--no-checksum"], status: 1, message: "not an SQLite database")

            try Data("\(String(repeating: "0", count: 64))  copy.sqlite\n".utf8).write(to: URL(fileURLWithPath: copy + ".sha256"))
            try await expectRefused(copy, in: directory, status: 1, message: "does not match")
            try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: copy + ".sha256"))
            try await expectRefused(copy, in: directory, status: 2, message: "sha256sum")
            // A checksum file that is there is checked even with --no-checksum.
            try await expectRefused(copy, in: directory, extra: ["--no-checksum"], status: 2, message: "sha256sum")
            try FileManager.default.removeItem(atPath: copy + ".sha256")
            try await expectRefused(copy, in: directory, status: 2, message: "--no-checksum")

            try await expectRefused(directory.appendingPathComponent("absent.sqlite").path, in: directory, status: 2, message: "cannot read")
        }
    }

    @Test("a backup does not replace an existing file without --force, nor a restore an existing database")
    func overwritingNeedsForce() async throws {
        try await withCopy { directory, copy in
            let original = try Data(contentsOf: URL(fileURLWithPath: copy))
            let data = directory.appendingPathComponent("data")
            let again = try await BackupRestoreTests.storekeeper(["backup", "--data-dir", data.path, "--to", copy])
            #expect(again.status == 2)
            #expect(again.errorText.contains("--force"), "\(again.errorText)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == original)
            let forced = try await BackupRestoreTests.storekeeper(["backup", "--data-dir", data.path, "--to", copy, "--force"])
            #expect(forced.status == 0, "\(forced.errorText)")
            let summary = try #require(try JSONSerialization.jsonObject(with: forced.output) as? [String: Any])
            #expect(summary["sha256"] as? String == (try BackupRestoreTests.sha256(copy)))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("partial") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")

            let refused = try await BackupRestoreTests.storekeeper(["restore", "--from", copy, "--data-dir", data.path])
            #expect(refused.status == 2)
            #expect(refused.errorText.contains("already exists"), "\(refused.errorText)")
            let restored = try await BackupRestoreTests.storekeeper(["restore", "--from", copy, "--data-dir", data.path, "--force"])
            #expect(restored.status == 0, "\(restored.errorText)")
            let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
            #expect(names.contains("storekeeper.sqlite"))
            #expect(names.contains { $0.hasPrefix("storekeeper.sqlite.before-restore-") }, "\(names)")
        }
    }

    @Test("a PostgreSQL database is refused with the pg_dump and pg_basebackup recipe, its password never shown")
    func postgresIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let url = "postgres://storekeeper:hunter2secret@127.0.0.1:1/storekeeper"
        for arguments in [["backup", "--to", "/tmp/never.sqlite"], ["restore", "--from", "/tmp/never.sqlite"]] {
            let result = try await BackupRestoreTests.storekeeper(arguments + ["--database-url", url])
            #expect(result.status == 2, "\(arguments[0]): \(result.errorText)")
            #expect(result.errorText.contains("pg_dump"), "\(result.errorText)")
            #expect(result.errorText.contains("docs/backups.md"))
            #expect(!result.errorText.contains("hunter2secret"))
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.sqlite"))
    }

    @Test("a restore refuses a directory whose lock a server holds, and proceeds once it is let go")
    func restoreWaitsForNoServer() async throws {
        try await withCopy { directory, copy in
            let target = directory.appendingPathComponent("held")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let database = target.appendingPathComponent("storekeeper.sqlite").path
            // The lock a serving store holds (`buildApplication` takes it shared).
            let lock = try DataDirectoryLock(databasePath: database, mode: .shared)
            let refused = try await BackupRestoreTests.storekeeper(["restore", "--from", copy, "--data-dir", target.path])
            #expect(refused.status == 2)
            #expect(refused.errorText.contains("a server is running on \(target.path)"), "\(refused.errorText)")
            #expect(!FileManager.default.fileExists(atPath: database))
            // A second server beside the first is not refused (shared), a restore's lock refuses one.
            let second = try DataDirectoryLock(databasePath: database, mode: .shared)
            second.release()
            lock.release()
            let restored = try await BackupRestoreTests.storekeeper(["restore", "--from", copy, "--data-dir", target.path])
            #expect(restored.status == 0, "\(restored.errorText)")
            let restoring = try DataDirectoryLock(databasePath: database, mode: .exclusive)
            #expect(throws: StoreError.self) { try DataDirectoryLock(databasePath: database, mode: .shared) }
            restoring.release()
        }
    }
}
