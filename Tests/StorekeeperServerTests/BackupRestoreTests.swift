import Crypto
import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import Synchronization
import Testing

/// `storekeeper backup` and `storekeeper restore` as an operator runs them: the built binary,
/// beside a `storekeeper serve` child on a temporary SQLite data directory.
@Suite("Backup and restore under load", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct BackupRestoreTests {
    @Test("a backup taken while notifications stream in holds every one acknowledged before it began, and restores")
    func backupDuringWritesRestoresEveryAcknowledgedNotification() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let config = directory.appendingPathComponent("config.json")
        let data = directory.appendingPathComponent("data")
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let server = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: nil), "the server did not start")
        defer { server.kill() }

        // Two streams post signed notifications until told to stop, each a new chain.
        let log = AcknowledgementLog()
        let streams = (0..<2).map { stream in
            Task {
                var index = 0
                while !log.stopped, index < Self.streamLimit {
                    let now = Date()
                    let chain = "bk-\(stream)-\(index)"
                    let uuid = UUID().uuidString.lowercased()
                    let body = try SignedData.notification(
                        ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, signed: now - 60,
                        transaction: try SignedData.transaction(
                            id: chain, original: chain, purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60),
                        renewal: try SignedData.renewal(original: chain, autoRenew: true, signed: now - 60))
                    if await server.request("/v1/apps/alpha/notifications", method: "POST", body: body)?.0 == 200 { log.acknowledge(uuid) }
                    index += 1
                }
            }
        }
        #expect(await server.waitFor(seconds: 180) { log.count >= 40 }, "the server acknowledged too few notifications")

        // Every uuid in `before` was answered 200, so stored, before the backup started.
        let before = log.all
        let backup = try await Self.storekeeper(["backup", "--data-dir", data.path, "--to", copy])
        let duringBackup = log.count - before.count
        #expect(backup.status == 0, "backup failed: \(backup.errorText)")
        // The streams go on after the backup, then stop.
        _ = await server.waitFor(seconds: 60) { log.count >= before.count + duringBackup + 10 }
        log.stop()
        for stream in streams { try await stream.value }

        // While the server runs, its directory cannot be restored over.
        let refused = try await Self.storekeeper(["restore", "--from", copy, "--data-dir", data.path, "--force"])
        #expect(refused.status == 2)
        #expect(refused.errorText.contains("a server is running on \(data.path)"), "\(refused.errorText)")
        #expect(await server.stop(), "the server did not stop gracefully")

        // The summary, the checksum file and the copy agree.
        let summary = try #require(try JSONSerialization.jsonObject(with: backup.output) as? [String: Any])
        let digest = try Self.sha256(copy)
        #expect(summary["sha256"] as? String == digest)
        #expect(summary["bytes"] as? Int == Int(try Data(contentsOf: URL(fileURLWithPath: copy)).count))
        #expect(summary["schemaVersion"] as? Int == SQLStore.latestSchemaVersion)
        #expect(summary["integrity"] as? String == "ok")
        #expect(summary["takenAt"] is String)
        let checksumLine = try String(contentsOfFile: copy + ".sha256", encoding: .utf8)
        #expect(checksumLine == "\(digest)  copy.sqlite\n")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") {
            let verified = try await ChildProcess.run("/usr/bin/sha256sum", ["-c", "copy.sqlite.sha256"], directory: directory.path, timeout: 60)
            #expect(verified.status == 0, "sha256sum -c: \(verified.outputText)")
        }

        // Restored into a fresh directory, every notification acknowledged before the backup is there.
        let fresh = directory.appendingPathComponent("restored")
        let restored = try await Self.storekeeper(["restore", "--from", copy, "--data-dir", fresh.path])
        #expect(restored.status == 0, "restore failed: \(restored.errorText)")
        let uuids = try await SQLStore.withStore(.sqlite(path: fresh.appendingPathComponent("storekeeper.sqlite").path), logger: Self.logger) {
            store in
            // Stored at receipt, processed or not: the key is `v2:<notificationUUID>:<body digest>`.
            try await store.notifications(appId: "alpha", filter: NotificationFilter(limit: 1000)).compactMap {
                $0.metadata?.notificationUUID?.lowercased() ?? $0.idempotencyKey.split(separator: ":").dropFirst().first.map { $0.lowercased() }
            }
        }
        let missing = Set(before).subtracting(uuids)
        #expect(missing.isEmpty, "\(missing.count) of the \(before.count) notifications acknowledged before the backup are missing")
        #expect(uuids.count >= before.count)

        // Once the server has stopped, the same directory may be restored over (with --force),
        // its database moved aside.
        let over = try await Self.storekeeper(["restore", "--from", copy, "--data-dir", data.path, "--force"])
        #expect(over.status == 0, "restore over the stopped server's directory failed: \(over.errorText)")
        let overSummary = try #require(try JSONSerialization.jsonObject(with: over.output) as? [String: Any])
        let aside = try #require((overSummary["movedAside"] as? [String])?.first)
        #expect(aside.hasPrefix(data.appendingPathComponent("storekeeper.sqlite.before-restore-").path))
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(overSummary["checksum"] as? String == "matched")
    }

    /// At most this many notifications per stream, so that the restored inbox fits one listing.
    static let streamLimit = 450

    static let logger: Logger = {
        var logger = Logger(label: "test.backup")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs the built `storekeeper` with `arguments`, with no configuration from the test's
    /// environment, ending it after two minutes at most.
    static func storekeeper(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess.run(ServerProcess.binary.path, arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: 120)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }
}

/// The notifications the server acknowledged, in the order their 200s arrived.
final class AcknowledgementLog: Sendable {
    private let uuids = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)

    func acknowledge(_ uuid: String) { uuids.withLock { $0.append(uuid) } }
    var all: [String] { uuids.withLock { $0 } }
    var count: Int { uuids.withLock { $0.count } }
    func stop() { stopping.store(true, ordering: .relaxed) }
    var stopped: Bool { stopping.load(ordering: .relaxed) }
}
