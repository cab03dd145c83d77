import Crypto
import Foundation
import Hummingbird
import Synchronization

/// The demo's stand-in for the app's own backend: a webhook receiver on loopback that checks
/// every Standard Webhooks signature, keeps each event once (by `webhook-id`), and answers 500
/// for one customer — whose paid events therefore never arrive, so the server opens a
/// `charged_not_delivered` problem and alerts `/alerts`. `GET /events` shows what arrived.
/// `/revenuecat` takes the same events in RevenueCat's webhook format (the configured
/// `Authorization` header required), each checked against RevenueCat's documented fields
/// (``DemoRevenueCatCheck``) and kept once by its `id`.
final class DemoReceiver: Sendable {
    struct Received: Sendable, Codable {
        var id: String
        var type: String
        var customerId: String?
        var originalTransactionId: String?
        var productId: String?
        var occurredAt: String
    }

    private struct State {
        var events: [String: Received] = [:]
        var order: [String] = []
        var alerts: [Received] = []
        var posts = 0
        var badSignatures = 0
        var revenueCat: [String: DemoRevenueCatCheck.Received] = [:]
        var revenueCatOrder: [String] = []
        var revenueCatPosts = 0
        var revenueCatProblems: [String] = []
    }

    let key: Data
    let failingCustomer: String
    private let state = Mutex(State())

    init(key: Data, failingCustomer: String) {
        self.key = key
        self.failingCustomer = failingCustomer
    }

    var events: [Received] { state.withLock { state in state.order.compactMap { state.events[$0] } } }
    var alerts: [Received] { state.withLock { $0.alerts } }
    var posts: Int { state.withLock { $0.posts } }
    var badSignatures: Int { state.withLock { $0.badSignatures } }
    /// The RevenueCat-format deliveries, once each, in the order they arrived.
    var revenueCatEvents: [DemoRevenueCatCheck.Received] {
        state.withLock { state in state.revenueCatOrder.compactMap { state.revenueCat[$0] } }
    }
    var revenueCatPosts: Int { state.withLock { $0.revenueCatPosts } }
    /// What was wrong with RevenueCat-format posts (refused with a 400).
    var revenueCatProblems: [String] { state.withLock { $0.revenueCatProblems } }

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("/webhook") { request, _ in try await self.receive(request, alert: false) }
        router.post("/alerts") { request, _ in try await self.receive(request, alert: true) }
        router.post("/revenuecat") { request, _ in try await self.receiveRevenueCat(request) }
        router.get("/events") { _, _ in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let recent = Array(self.events.suffix(100))
            let body = try encoder.encode(["received": self.events.count, "alerts": self.alerts.count, "recent": recent.count] as [String: Int])
            let list = try encoder.encode(recent)
            var text = String(decoding: body, as: UTF8.self)
            text = String(text.dropLast()) + ",\n  \"events\" : " + String(decoding: list, as: UTF8.self) + "\n}"
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    private func receive(_ request: Request, alert: Bool) async throws -> Response {
        var request = request
        let body = Data(try await request.collectBody(upTo: 1 << 20).readableBytesView)
        guard let id = request.headers[.init("webhook-id")!], let timestamp = request.headers[.init("webhook-timestamp")!],
            let signature = request.headers[.init("webhook-signature")!], verifies(id: id, timestamp: timestamp, body: body, signature: signature),
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let data = object["data"] as? [String: Any]
        else {
            state.withLock { $0.badSignatures += 1 }
            return Response(status: .unauthorized)
        }
        let received = Received(
            id: id, type: object["type"] as? String ?? "", customerId: data["customerId"] as? String,
            originalTransactionId: data["originalTransactionId"] as? String, productId: data["productId"] as? String,
            occurredAt: object["timestamp"] as? String ?? "")
        if !alert, received.customerId == failingCustomer { return Response(status: .internalServerError) }
        state.withLock { state in
            state.posts += 1
            if alert {
                state.alerts.append(received)
            } else if state.events[id] == nil {
                state.events[id] = received
                state.order.append(id)
            }
        }
        return Response(status: .noContent)
    }

    private func receiveRevenueCat(_ request: Request) async throws -> Response {
        var request = request
        let body = Data(try await request.collectBody(upTo: 1 << 20).readableBytesView)
        guard request.headers[.authorization] == DemoWorld.revenueCatAuthorization else { return Response(status: .unauthorized) }
        switch DemoRevenueCatCheck.read(body) {
        case .failure(let problem):
            state.withLock { $0.revenueCatProblems.append(problem.description) }
            return Response(status: .badRequest)
        case .success(let received):
            state.withLock { state in
                state.revenueCatPosts += 1
                if state.revenueCat[received.id] == nil {
                    state.revenueCat[received.id] = received
                    state.revenueCatOrder.append(received.id)
                }
            }
            return Response(status: .ok)
        }
    }

    private func verifies(id: String, timestamp: String, body: Data, signature: String) -> Bool {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).".utf8) + body, using: SymmetricKey(data: key))
        let expected = "v1," + Data(mac).base64EncodedString()
        return signature.split(separator: " ").contains { $0 == expected }
    }
}
