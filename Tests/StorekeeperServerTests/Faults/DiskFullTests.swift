import Foundation
import StorekeeperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SQLite's disk full while notifications pour in: every POST is answered 200 (stored) or 503
/// with `Retry-After` and a JSON error — never a 500 or a crash; `/health` says the database
/// cannot store writes and why; once there is room again, POSTs succeed within 5 s and every
/// stored notification is processed exactly once. In CI the disk stays full 6 s;
/// `STOREKEEPER_SOAK=1` makes it 30 s.
@Suite("SQLite disk full under load", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct DiskFullTests {
    @Test("the disk fills under load: 200 or 503 with Retry-After, /health says why, room again: back within seconds, nothing lost")
    func diskFullUnderLoad() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let full: Double = KillStormTests.soak ? 30 : 6
        let count = KillStormTests.soak ? 3_000 : 600
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-diskfull-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        let log = directory.appendingPathComponent("server.log")
        // Room for every notification (about 80 KB each with its ledger facts, events and
        // indexes, as much again for its chain's and its customer's figures) and the WAL, with
        // room to spare, so that only the filler fills the disk.
        let disk = try LimitedDisk(directory: directory.appendingPathComponent("data"), megabytes: 48 + count / 4)
        defer { disk.remove() }
        let now = Date()
        let chains = (0..<count).map { "diskfull-\($0)" }
        let bodies = try chains.map { try SignedData.subscribed(ca, chain: $0, now: now) }
        let server = try #require(
            try await ServerProcess.startHealthy(
                config: directory.appendingPathComponent("config.json"), dataDirectory: disk.directory, databaseURL: nil, log: log),
            "the server did not start")
        let pid = server.process.processIdentifier
        // A failed expectation that ends the test early does not leave the server running.
        defer { server.kill() }

        let report = try await FaultUnderLoad(server: server, bodies: bodies).run(
            duration: full, fault: { try disk.exhaust(pid: pid) }, heal: { try disk.restore(pid: pid) })
        #expect(server.process.isRunning, "the server died when the disk filled")
        #expect(report.health?.status == 503)
        #expect(report.health?.reason?.hasPrefix("the database cannot store writes: ") == true, "\(String(describing: report.health))")
        #expect(report.unexpected.isEmpty, "\(report.unexpected.prefix(5))")
        #expect(report.refusals > 0, "no POST met the full disk")
        let back = try #require(
            report.back,
            "nothing succeeded after there was room again; the disk holds \(disk.usage); the server logged:\n\(Self.refusals(in: log))\n…\n\(ServerProcess.tail(of: log))"
        )
        #expect(back < 5, "POSTs succeeded again only \(back) s after there was room; the server logged:\n\(ServerProcess.tail(of: log))")
        #expect(report.acknowledged == count)
        print(
            "disk full under load (\(disk.kind.rawValue)): \(count) notifications, full \(Int(full)) s, \(report.refusals) POSTs answered 503, "
                + "health \(report.health?.reason ?? "-"), back \(String(format: "%.2f", back)) s after; the disk holds \(disk.usage)")
        await FaultUnderLoad.expectEachProcessedOnce(server: server, chains: chains)
        #expect(await server.request("/health")?.0 == 200)
        #expect(await server.stop(), "the server did not stop gracefully on SIGTERM")
    }

    /// The storage's own refusals in the server's log (with SQLite's extended result codes):
    /// the first three and the last three, which the requests' lines drown out in its tail.
    static func refusals(in log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter { $0.contains("the storage refused a write") }
        return (lines.count > 6 ? Array(lines.prefix(3) + lines.suffix(3)) : lines).joined(separator: "\n")
    }
}
