import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// A Hummingbird server on a free loopback port, for the test fakes that stand in for the
/// receivers the server posts to (``LoopbackWebhookReceiver``, ``LoopbackDestination``).
final class LoopbackServer: Sendable {
    let port: Int
    private let running: Task<Void, any Error>
    private let group: ServiceGroup

    /// Starts `router` and waits (up to two minutes, for a loaded machine) until it listens; `name` says what did not start.
    init(router: Router<BasicRequestContext>, logger: Logger, name: String) async throws {
        let bound = Mutex<Int>(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in bound.withLock { $0 = channel.localAddress?.port ?? 0 } }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        self.group = group
        running = Task { try await group.run() }
        var port = 0
        for _ in 0..<2_400 where port == 0 {
            try await Task.sleep(for: .milliseconds(50))
            port = bound.withLock { $0 }
        }
        self.port = port
        try #require(port != 0, "the \(name) did not start")
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        running.cancel()
    }
}
