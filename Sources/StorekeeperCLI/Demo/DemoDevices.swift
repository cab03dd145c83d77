import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import StorekeeperKit
import Synchronization

/// The demo's customers' phones: each runs StorekeeperKit's core, its store handing over what
/// the simulated App Store sold, so every purchase of a demo reaches the server through the SDK's
/// path (post, finish once recorded, signed customer state kept for offline use).
actor DemoDevices {
    let serverURL: URL
    let apiKey: String
    let directory: URL
    var serverPublicKey: String?
    var devices: [String: (sdk: StorekeeperKit.Storekeeper, store: DemoDeviceStore)] = [:]
    /// Purchases delivered and how many were not.
    private(set) var delivered = 0
    private(set) var undelivered: [String] = []

    init(serverURL: URL, apiKey: String, directory: URL) {
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.directory = directory
    }

    /// Hands the purchase to the customer's app, which delivers it through the server.
    func deliver(_ purchase: DevicePurchase) async throws -> PurchaseOutcome {
        let device = try self.device(purchase.customerId)
        device.store.sell(
            StoreTransaction(
                id: purchase.transactionId, originalId: purchase.originalTransactionId, productId: purchase.productId,
                signedTransaction: purchase.signedTransaction, appAccountToken: purchase.appAccountToken.flatMap(UUID.init(uuidString:)),
                purchaseDate: purchase.date))
        let outcome = await device.sdk.purchase(productId: purchase.productId)
        if case .delivered = outcome {
            delivered += 1
            if serverPublicKey == nil {
                serverPublicKey = try? String(contentsOf: directory.appendingPathComponent("\(purchase.customerId)/server-key.pem"), encoding: .utf8)
            }
        } else {
            undelivered.append("\(purchase.transactionId): \(outcome)")
        }
        return outcome
    }

    /// The app account token the server issued to the customer, as its app asks for it.
    func appAccountToken(of customerId: String) async throws -> String {
        try await device(customerId).sdk.appAccountToken().uuidString.lowercased()
    }

    func device(_ customerId: String) throws -> (sdk: StorekeeperKit.Storekeeper, store: DemoDeviceStore) {
        if let device = devices[customerId] { return device }
        let store = DemoDeviceStore()
        let sdk = try StorekeeperKit.Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: serverURL, appId: DemoWorld.appId, apiKey: apiKey, appUserId: customerId, serverPublicKey: serverPublicKey,
                stateDirectory: directory.appendingPathComponent(customerId), deliveryAttempts: 3),
            store: store)
        devices[customerId] = (sdk, store)
        return (sdk, store)
    }
}

/// A demo phone's App Store: the purchase the simulated customer just made, handed over when the
/// app asks to buy it.
final class DemoDeviceStore: StoreBackend {
    struct State {
        var sold: [StoreTransaction] = []
        var unfinished: [StoreTransaction] = []
        var finished: Set<String> = []
    }
    let state = Mutex(State())

    func sell(_ transaction: StoreTransaction) {
        state.withLock { $0.sold.append(transaction) }
    }

    func products(for ids: [String]) async throws -> [StoreProduct] { [] }

    func purchase(productId: String, options: StorePurchaseOptions) async -> StorePurchaseResult {
        state.withLock { state in
            guard let index = state.sold.firstIndex(where: { $0.productId == productId }) else { return .failed(.productUnavailable) }
            let transaction = state.sold.remove(at: index)
            state.unfinished.append(transaction)
            return .purchased(transaction)
        }
    }

    func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
    func unfinishedTransactions() async -> [StoreTransaction] { state.withLock { $0.unfinished } }
    func currentEntitlements() async -> [StoreTransaction] { [] }
    func sync() async throws {}

    func finish(_ transaction: StoreTransaction) async {
        state.withLock { state in
            state.finished.insert(transaction.id)
            state.unfinished.removeAll { $0.id == transaction.id }
        }
    }

    func purchaseIntents() -> AsyncStream<PurchaseIntent> { AsyncStream { $0.finish() } }
}
