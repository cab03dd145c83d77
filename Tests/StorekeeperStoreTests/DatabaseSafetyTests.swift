import Foundation
import Logging
import Testing

@testable import StorekeeperStore

@Suite("Database files and connections are private")
struct DatabaseSafetyTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    @Test("a new data directory is 0700 and the database, its WAL and shared memory 0600")
    func freshFilesArePrivate() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sk-perm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("data")
        let path = directory.appendingPathComponent(DatabaseLocation.sqliteFileName).path
        var logger = Logger(label: "test.perm")
        logger.logLevel = .critical
        try await SQLStore.withStore(.sqlite(path: path), logger: logger) { store in
            try await store.saveApp(AppRecord(id: "a", bundleId: "b", createdAt: Date()))
        }
        #expect(try Self.mode(directory.path) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }
    }

    @Test("an existing database file readable by others is tightened to 0600")
    func existingFileTightened() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sk-perm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let path = base.appendingPathComponent("s.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        var logger = Logger(label: "test.perm")
        logger.logLevel = .critical
        try await SQLStore.withStore(.sqlite(path: path), logger: logger) { _ in }
        #expect(try Self.mode(path) == 0o600)
    }

    @Test("sslmode: unknown values are refused, other hosts default to require, plaintext to them is a warning")
    func sslModes() throws {
        #expect(throws: StoreError.self) { try PostgresSettings(url: "postgres://u:p@db.example.com/app?sslmode=requir") }
        #expect(throws: StoreError.self) { try DatabaseLocation.resolve(databaseURL: "postgres://u:p@h/app?sslmode=on", dataDirectory: "/x") }
        #expect(throws: StoreError.self) { try PostgresSettings(url: "postgres://u:p@h/app?connect_timeout=-1") }
        let remote = try PostgresSettings(url: "postgres://u:p@db.example.com/app")
        #expect(remote.sslmode == "require" && remote.warnings.isEmpty)
        let local = try PostgresSettings(url: "postgres://u:p@127.0.0.1/app")
        #expect(local.sslmode == "prefer" && local.warnings.isEmpty)
        for mode in ["disable", "allow", "prefer"] {
            let plaintext = try PostgresSettings(url: "postgres://u:p@db.example.com/app?sslmode=\(mode)")
            #expect(plaintext.warnings.count == 1)
            #expect(plaintext.warnings.allSatisfy { !$0.contains("u:p") })
        }
        for mode in ["require", "verify-ca", "verify-full"] {
            #expect(try PostgresSettings(url: "postgres://u:p@db.example.com/app?sslmode=\(mode)").warnings.isEmpty)
        }
        #expect(try PostgresSettings(url: "postgres://u:p@h/app?connect_timeout=2").acquireTimeout == .seconds(2))
        #expect(DatabaseLocation.postgres(url: "postgres://u:p@10.0.0.5/app?sslmode=disable").warnings.count == 1)
    }
}
