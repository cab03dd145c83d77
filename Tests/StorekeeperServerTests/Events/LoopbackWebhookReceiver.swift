import Foundation
import Hummingbird
import Logging
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
    private let server: LoopbackServer

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
        server = try await LoopbackServer(router: router, logger: logger, name: "webhook receiver")
        port = server.port
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
        await server.stop()
    }
}
