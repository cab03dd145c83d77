import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StorekeeperStore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A webhook receiver for a server running as another process: slow enough that a kill lands
/// in the middle of deliveries; keeps every `webhook-id` it accepted, with repeats.
final class SlowReceiver: Sendable {
    let ids = Mutex<[String]>([])

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("/hook") { request, _ in
            try await Task.sleep(for: .milliseconds(40))
            if let id = request.headers[.init("webhook-id")!] { self.ids.withLock { $0.append(id) } }
            return Response(status: .ok)
        }
    }
}

@Suite("Events out: crashes", .serialized)
struct DeliveryCrashTests {
    @Test("kill -9 in the middle of deliveries loses no event; after restart every event arrives, repeats only with the same webhook-id")
    func killDuringDeliveries() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-kill-deliveries-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, ca) = try Fixture.configuration(directory: directory)
        var logger = Logger(label: "test.receiver")
        logger.logLevel = .critical
        let receiver = SlowReceiver()
        let router = Router(context: BasicRequestContext.self)
        receiver.addRoutes(to: router)
        let port = Mutex<Int>(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port ?? 0 } }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let running = Task { try await group.run() }
        defer {
            running.cancel()
            Task { await group.triggerGracefulShutdown() }
        }
        var receiverPort = 0
        for _ in 0..<100 where receiverPort == 0 {
            try await Task.sleep(for: .milliseconds(50))
            receiverPort = port.withLock { $0 }
        }
        try #require(receiverPort != 0)
        // The fixture's configuration with alpha's webhook at the receiver.
        let config = directory.appendingPathComponent("config.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any])
        var apps = try #require(json["apps"] as? [[String: Any]])
        apps[0]["allowPrivateNetworks"] = true
        apps[0]["webhooks"] = [
            [
                "id": "backend", "url": "http://127.0.0.1:\(receiverPort)/hook",
                "secret": "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
            ]
        ]
        json["apps"] = apps
        try JSONSerialization.data(withJSONObject: json).write(to: config)

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
        _ = await first.waitFor(seconds: 30) { receiver.ids.withLock { $0.count } >= 5 }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let before = receiver.ids.withLock { Set($0).count }
        #expect(before < count, "the kill came too late to interrupt the deliveries")

        let second = try #require(
            try await ServerProcess.startHealthy(config: config, dataDirectory: data, databaseURL: nil), "the server did not restart")
        let complete = await second.waitFor(seconds: 90) { receiver.ids.withLock { Set($0).count } == count }
        #expect(complete, "only \(receiver.ids.withLock { Set($0).count }) of \(count) events arrived")
        let ids = receiver.ids.withLock { $0 }
        // At most the deliveries in flight at the kill were repeated, each with its own id.
        #expect(ids.count - Set(ids).count <= 10)
        #expect(await second.stop())
    }
}
