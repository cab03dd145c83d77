import Foundation
import Testing

/// `storekeeper migrate` and `migrate --plan` on an SQLite data directory.
@Suite("storekeeper migrate")
struct MigrateCommandTests {
    @Test("--plan changes nothing: no database made where there was none, nothing to run once migrated")
    func plan() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("storekeeper.sqlite").path
        let before = try await StorekeeperProcess.run(["migrate", "--plan", "--data-dir", directory.path])
        #expect(before.exitCode == 0, "\(before.text)\(before.standardError)")
        #expect(before.text.contains("no database yet") && before.text.contains("Nothing was changed"), "\(before.text)")
        #expect(!FileManager.default.fileExists(atPath: database))
        let migrated = try await StorekeeperProcess.run(["migrate", "--data-dir", directory.path])
        #expect(migrated.exitCode == 0 && migrated.text.contains("schema version"), "\(migrated.text)\(migrated.standardError)")
        let after = try await StorekeeperProcess.run(["migrate", "--plan", "--data-dir", directory.path])
        #expect(after.exitCode == 0 && after.text.contains("nothing to run"), "\(after.text)\(after.standardError)")
    }

    @Test("--expand-only on a new database applies every step (nothing older reads it); on one up to date it has nothing to do")
    func expandOnly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let expanded = try await StorekeeperProcess.run(["migrate", "--expand-only", "--data-dir", directory.path])
        #expect(expanded.exitCode == 0, "\(expanded.text)\(expanded.standardError)")
        #expect(expanded.text.contains("26, 27, 28, 29, 30]") && expanded.text.contains("up to date"), "\(expanded.text)")
        let again = try await StorekeeperProcess.run(["migrate", "--expand-only", "--data-dir", directory.path])
        #expect(again.exitCode == 0 && again.text.contains("nothing to apply") && again.text.contains("up to date"), "\(again.text)")
    }
}
