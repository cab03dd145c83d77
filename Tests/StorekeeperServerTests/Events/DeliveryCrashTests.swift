import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StorekeeperStore
import StorekeeperTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Events out: crashes", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct DeliveryCrashTests {
    @Test("kill -9 in the middle of deliveries loses no event; after restart every event arrives, repeats only with the same webhook-id")
    func killDuringDeliveries() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-kill-deliveries-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        // A kill lands in the middle of deliveries: after the first five, the rest are held
        // unanswered until the restart, however fast or slow the machine.
        let receiver = try await LoopbackWebhookReceiver(delay: .milliseconds(40), holdingAfter: 5)
        let config = directory.appendingPathComponent("config.json")
        try receiver.point(configuration: config)

        let data = directory.appendingPathComponent("data")
        let first = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: nil), "the server did not start")
        let now = Date()
        let count = 60
        for index in 0..<count {
            let id = "k\(index)"
            let transaction = try SignedData.transaction(
                id: id, original: id, purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60)
            let body = "{\"signedTransaction\": \"\(try ca.signTransaction(transaction))\"}"
            let answer = await first.request("/v1/apps/alpha/customers/c\(index)/purchases", method: "POST", key: Fixture.alphaKey, body: body)
            #expect(answer?.0 == 200)
        }
        // Kill once some, not all, deliveries arrived.
        _ = await first.waitFor(seconds: 180) { receiver.received.ids.withLock { $0.count } >= 5 }
        first.process.kill()
        first.process.waitUntilExit()
        let before = receiver.received.ids.withLock { Set($0).count }
        #expect(before < count, "the kill came too late to interrupt the deliveries")

        receiver.release()
        let second = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: nil), "the server did not restart")
        let complete = await second.waitFor(seconds: 300) { receiver.received.ids.withLock { Set($0).count } == count }
        #expect(complete, "only \(receiver.received.ids.withLock { Set($0).count }) of \(count) events arrived")
        let ids = receiver.received.ids.withLock { $0 }
        // At most the deliveries in flight at the kill were repeated, each with its own id.
        #expect(ids.count - Set(ids).count <= 10)
        #expect(await second.stop())
        await receiver.stop()
    }
}
