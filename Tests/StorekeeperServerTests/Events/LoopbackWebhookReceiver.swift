import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// A webhook receiver on a loopback port for servers running as other processes: it answers
/// each delivery 200 after `delay` and keeps every `webhook-id` it accepted, with repeats. It
/// can hold deliveries unanswered once some arrived, until ``release()``.
final class LoopbackWebhookReceiver: Sendable {
    /// What arrived.
    final class Received: Sendable {
        let ids = Mutex<[String]>([])
    }

    /// Whether held deliveries may be answered.
    final class Release: Sendable {
        private let flag = Atomic(false)
        func open() { flag.store(true, ordering: .relaxed) }
        var isOpen: Bool { flag.load(ordering: .relaxed) }
    }

    let received = Received()
    let port: Int
    private let released = Release()
    private let running: Task<Void, any Error>
    private let group: ServiceGroup

    /// Starts the receiver (Hummingbird on a free port). Once `holdingAfter` deliveries were
    /// accepted, later ones wait unanswered until ``release()`` (nil: none wait).
    init(delay: Duration, holdingAfter: Int? = nil) async throws {
        var logger = Logger(label: "test.receiver")
        logger.logLevel = .critical
        let received = received
        let released = released
        let router = Router(context: BasicRequestContext.self)
        router.post("/hook") { request, _ in
            try await Task.sleep(for: delay)
            if let holdingAfter {
                while !released.isOpen, received.ids.withLock({ $0.count }) >= holdingAfter {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            if let id = request.headers[.init("webhook-id")!] { received.ids.withLock { $0.append(id) } }
            return Response(status: .ok)
        }
        let bound = Mutex<Int>(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in bound.withLock { $0 = channel.localAddress?.port ?? 0 } }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        self.group = group
        running = Task { try await group.run() }
        // Up to two minutes to start on a loaded machine.
        var port = 0
        for _ in 0..<2_400 where port == 0 {
            try await Task.sleep(for: .milliseconds(50))
            port = bound.withLock { $0 }
        }
        self.port = port
        try #require(port != 0, "the webhook receiver did not start")
    }

    /// Distinct ids received.
    var distinct: Int { received.ids.withLock { Set($0).count } }

    /// Points app alpha of the fixture's configuration file at this receiver.
    func point(configuration file: URL) throws {
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var apps = try #require(json["apps"] as? [[String: Any]])
        apps[0]["allowPrivateNetworks"] = true
        apps[0]["webhooks"] = [
            ["id": "backend", "url": "http://127.0.0.1:\(port)/hook", "secret": "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()]
        ]
        json["apps"] = apps
        try JSONSerialization.data(withJSONObject: json).write(to: file)
    }

    /// Answers the held deliveries and holds no more.
    func release() { released.open() }

    func stop() async {
        await group.triggerGracefulShutdown()
        running.cancel()
    }
}
