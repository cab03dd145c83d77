import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// A tiny notification endpoint on a loopback port: it keeps every body it receives, answers
/// HTTP 500 to the first `failures` posts and 200 afterwards, and stalls on `/slow`.
final class LoopbackNotificationServer: Sendable {
    private let failures: Int
    private let received = Mutex<[Data]>([])
    /// Decides the answer to an accepted body, after the failures; 200 by default.
    private let judge: @Sendable (Data) async -> HTTPResponse.Status

    init(failures: Int = 0, judge: @escaping @Sendable (Data) async -> HTTPResponse.Status = { _ in .ok }) {
        self.failures = failures
        self.judge = judge
    }

    /// Every body posted to `/notifications`, in arrival order.
    var bodies: [Data] { received.withLock { $0 } }

    /// Runs the server on a free loopback port while `test` runs with the endpoint's URLs.
    func run(_ test: @escaping @Sendable (_ notifications: URL, _ slow: URL) async throws -> Void) async throws {
        let router = Router()
        router.post("notifications") { request, _ -> HTTPResponse.Status in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let body = Data(buffer.readableBytesView)
            let earlier = self.received.withLock { bodies in
                bodies.append(body)
                return bodies.count - 1
            }
            if earlier < self.failures { return .internalServerError }
            return await self.judge(body)
        }
        router.post("slow") { _, _ -> HTTPResponse.Status in
            try await Task.sleep(for: .seconds(3))
            return .ok
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)"
            try await test(try #require(URL(string: "\(base)/notifications")), try #require(URL(string: "\(base)/slow")))
        }
    }
}
