import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StorekeeperKit

/// StorekeeperKit's store for a simulated device: the simulator's device endpoints in place of
/// StoreKit (`storekeeper simulator serve`, or the demo's simulator).
struct SimulatorStoreBackend: StoreBackend {
    let simulator: URL
    let customerId: String
    let client: HTTPClient

    struct DeviceTransaction: Decodable {
        var id: String
        var originalId: String
        var productId: String
        var signedTransaction: String
        var appAccountToken: String?
        var purchaseDate: Int64
        var revocationDate: Int64?

        var storeTransaction: StoreTransaction {
            StoreTransaction(
                id: id, originalId: originalId, productId: productId, signedTransaction: signedTransaction,
                appAccountToken: appAccountToken.flatMap(UUID.init(uuidString:)),
                purchaseDate: Date(timeIntervalSince1970: TimeInterval(purchaseDate) / 1000),
                revocationDate: revocationDate.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) })
        }
    }

    struct Transactions: Decodable { var transactions: [DeviceTransaction] }
    struct Products: Decodable {
        struct Product: Decodable {
            var productId: String
            var type: String
            var subscriptionGroupIdentifier: String?
            var price: Int64
            var currency: String
        }
        var products: [Product]
    }
    struct Refusal: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    enum Failure: Error {
        case unreachable(String)
        case refused(status: Int, code: String, message: String)
    }

    func call(_ method: HTTPMethod, _ path: String, body: [String: String]? = nil) async throws -> Data {
        var request = HTTPClientRequest(url: simulator.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        }
        let response: HTTPClientResponse
        let data: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .seconds(30))
            data = try await response.body.collect(upTo: 16 << 20)
        } catch {
            throw Failure.unreachable("the simulator at \(simulator.absoluteString) did not answer: \(error)")
        }
        let bytes = Data(data.readableBytesView)
        guard response.status.code < 300 else {
            let refusal = try? JSONDecoder().decode(Refusal.self, from: bytes)
            throw Failure.refused(
                status: Int(response.status.code), code: refusal?.error.code ?? "http_\(response.status.code)",
                message: refusal?.error.message ?? String(decoding: bytes.prefix(200), as: UTF8.self))
        }
        return bytes
    }

    var customerPath: String {
        "/device/customers/" + (customerId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? customerId)
    }

    func transactions(_ method: HTTPMethod, _ suffix: String, body: [String: String]? = nil) async throws -> [StoreTransaction] {
        try JSONDecoder().decode(Transactions.self, from: try await call(method, customerPath + suffix, body: body)).transactions.map(
            \.storeTransaction)
    }

    func products(for ids: [String]) async throws -> [StoreProduct] {
        let products = try JSONDecoder().decode(Products.self, from: try await call(.GET, "/device/products")).products
        return products.filter { ids.contains($0.productId) }.map { product in
            let kind: StoreProduct.Kind =
                switch product.type {
                case "Auto-Renewable Subscription": .autoRenewable
                case "Non-Renewing Subscription": .nonRenewable
                case "Consumable": .consumable
                default: .nonConsumable
                }
            return StoreProduct(
                id: product.productId, kind: kind, displayName: product.productId,
                displayPrice: "\(Double(product.price) / 1000) \(product.currency)", subscriptionGroupId: product.subscriptionGroupIdentifier)
        }
    }

    func purchase(productId: String, options: StorePurchaseOptions) async -> StorePurchaseResult {
        do {
            let bought = try await transactions(
                .POST, "/purchase", body: ["productId": productId, "appAccountToken": options.appAccountToken.uuidString.lowercased()])
            guard let transaction = bought.last else { return .failed(.other("the simulator returned no transaction")) }
            return .purchased(transaction)
        } catch Failure.unreachable {
            return .failed(.network)
        } catch Failure.refused(_, let code, let message) {
            return code == "product_unavailable" ? .failed(.productUnavailable) : .failed(.other("\(code): \(message)"))
        } catch {
            return .failed(.other("\(error)"))
        }
    }

    func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }

    func unfinishedTransactions() async -> [StoreTransaction] {
        (try? await transactions(.GET, "/unfinished")) ?? []
    }

    func currentEntitlements() async -> [StoreTransaction] {
        (try? await transactions(.GET, "/entitlements")) ?? []
    }

    func sync() async throws {
        _ = try await call(.GET, customerPath + "/entitlements")
    }

    func finish(_ transaction: StoreTransaction) async {
        _ = try? await call(.POST, customerPath + "/finish", body: ["transactionId": transaction.id])
    }

    func purchaseIntents() -> AsyncStream<PurchaseIntent> { AsyncStream { $0.finish() } }
}
