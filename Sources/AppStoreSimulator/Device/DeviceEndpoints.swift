import Foundation
import Hummingbird

/// The device face of a running simulator (`/device/…`, JSON, no credentials: loopback test
/// use): what StoreKit would do on a customer's phone.
///
/// - `GET /device/products`
/// - `POST /device/customers/{id}/purchase` `{"productId", "appAccountToken"?, "offer"?}`
/// - `POST /device/customers/{id}/cancel` `{"productId", "onRetentionAnswer"?}`: when the app
///   configured a real-time URL, Apple's cancellation sheet asks it first and the customer
///   `accept`s what it shows or `decline`s (the default) and cancels anyway; the answer adds
///   `"retention": {"shown", "stayed"}`
/// - `POST /device/customers/{id}/resume` · `/refund` `{"productId"}`
/// - `GET /device/customers/{id}/entitlements` · `/unfinished`
/// - `POST /device/customers/{id}/finish` `{"transactionId"}`
///
/// Refusals answer 4xx `{"error": {"code", "message"}}` with StoreKit's reasons
/// (`product_unavailable`, `already_subscribed`, `already_owned`, `no_subscription`).
public struct DeviceEndpoints: Sendable {
    public let devices: SimulatedDevices

    public init(devices: SimulatedDevices) {
        self.devices = devices
    }

    struct PurchaseBody: Decodable {
        var productId: String
        var appAccountToken: String?
        var offer: String?
    }

    struct ProductBody: Decodable { var productId: String }
    struct CancelBody: Decodable {
        var productId: String
        var onRetentionAnswer: String?
    }
    struct CancelAnswer: Encodable {
        var transactions: [SimulatedDevices.DeviceTransaction]
        var retention: RetentionOutcome?
    }
    struct FinishBody: Decodable { var transactionId: String }
    struct BadBody: Error { var message: String }

    struct ProductAnswer: Encodable {
        var productId: String
        var type: String
        var subscriptionGroupIdentifier: String?
        var price: Int64
        var currency: String
        var freeTrialDays: Int?
    }

    public func addRoutes(to router: Router<BasicRequestContext>) {
        let group = router.group("device")
        group.get("products") { _, _ in
            try json([
                "products": await devices.products.map {
                    ProductAnswer(
                        productId: $0.productId, type: $0.type.rawValue, subscriptionGroupIdentifier: $0.subscriptionGroupIdentifier,
                        price: $0.price, currency: $0.currency, freeTrialDays: $0.freeTrialDays)
                }
            ])
        }
        group.post("customers/:customerId/purchase") { request, context in
            try await act(context) { customer in
                let body = try await decode(PurchaseBody.self, request)
                let action = PopulationSimulator.DeviceAction.buy(productId: body.productId, appAccountToken: body.appAccountToken, offer: body.offer)
                return try await devices.perform(action, customerId: customer)
            }
        }
        group.post("customers/:customerId/cancel") { request, context in
            try await respond(context) { customer in
                let body = try await decode(CancelBody.self, request)
                let decision: PopulationSimulator.RetentionDecision
                switch body.onRetentionAnswer {
                case nil, "decline": decision = .decline
                case "accept": decision = .accept
                default: throw BadBody(message: "onRetentionAnswer must be accept or decline")
                }
                let (transactions, retention) = try await devices.cancel(productId: body.productId, customerId: customer, decision: decision)
                return CancelAnswer(transactions: transactions, retention: retention)
            }
        }
        group.post("customers/:customerId/resume") { request, context in
            try await act(context) { customer in
                let body = try await decode(ProductBody.self, request)
                return try await devices.perform(.setAutoRenew(productId: body.productId, on: true), customerId: customer)
            }
        }
        group.post("customers/:customerId/refund") { request, context in
            try await act(context) { customer in
                let body = try await decode(ProductBody.self, request)
                return try await devices.perform(.refund(productId: body.productId), customerId: customer)
            }
        }
        group.get("customers/:customerId/entitlements") { _, context in
            try await act(context) { try await devices.currentEntitlements(customerId: $0) }
        }
        group.get("customers/:customerId/unfinished") { _, context in
            try await act(context) { try await devices.unfinishedTransactions(customerId: $0) }
        }
        group.post("customers/:customerId/finish") { request, context in
            try await act(context) { customer in
                let body = try await decode(FinishBody.self, request)
                await devices.finish(customerId: customer, transactionId: body.transactionId)
                return []
            }
        }
    }

    /// Runs a customer's call; its transactions, or the store's refusal as 4xx JSON.
    func act(
        _ context: BasicRequestContext, _ body: @Sendable (String) async throws -> [SimulatedDevices.DeviceTransaction]
    ) async throws -> Response {
        try await respond(context) { ["transactions": try await body($0)] }
    }

    /// Runs a customer's call; its answer, or the store's refusal as 4xx JSON.
    func respond<Answer: Encodable>(
        _ context: BasicRequestContext, _ body: @Sendable (String) async throws -> Answer
    ) async throws -> Response {
        guard let customer = context.parameters.get("customerId"), (1...256).contains(customer.utf8.count) else {
            return error(.badRequest, "bad_request", "customerId must be 1 to 256 characters")
        }
        do {
            return try json(try await body(customer))
        } catch let bad as BadBody {
            return error(.badRequest, "bad_request", bad.message)
        } catch let refusal as PopulationSimulator.DeviceRefusal {
            let status: HTTPResponse.Status = refusal.code == .productUnavailable || refusal.code == .noSubscription ? .notFound : .conflict
            return error(status, refusal.code.rawValue, refusal.message)
        }
    }

    func decode<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)) else {
            throw BadBody(message: "the body is not a valid \(Body.self)")
        }
        return body
    }

    func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        let body = (try? JSONEncoder().encode(["error": ["code": code, "message": message]])) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
