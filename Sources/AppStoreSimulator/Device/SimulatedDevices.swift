import AppStoreModels
import AsyncHTTPClient
import Foundation

/// The App Store as devices see it, in a running simulator: purchases, renewal settings,
/// refunds, the transactions a device holds and which of them the app has finished, with every
/// notification handed to delivery. One actor owns the population simulator (not thread-safe).
public actor SimulatedDevices {
    let population: PopulationSimulator
    let clock: SimulationClock
    let delivery: NotificationDelivery?
    /// Where the app's real-time URL is configured; nil: cancellations never open the sheet.
    let retentionMessaging: RetentionMessagingStore?
    /// Posts real-time requests to the app's Get Retention Message endpoint.
    let client: HTTPClient
    /// How long Apple waits for the app's answer before showing its default message.
    let retentionTimeout: Duration
    /// Per customer: transactions delivered to the device and not finished yet, in order.
    var unfinished: [String: [String]] = [:]

    /// Devices of `population`; with `retentionMessaging`, a cancellation opens Apple's
    /// cancellation sheet when the app configured a real-time URL, asked through `client`.
    public init(
        population: PopulationSimulator, clock: SimulationClock, delivery: NotificationDelivery?,
        retentionMessaging: RetentionMessagingStore? = nil, client: HTTPClient = .shared, retentionTimeout: Duration = .seconds(2)
    ) {
        self.population = population
        self.clock = clock
        self.delivery = delivery
        self.retentionMessaging = retentionMessaging
        self.client = client
        self.retentionTimeout = retentionTimeout
    }

    /// One transaction as a device holds it.
    public struct DeviceTransaction: Sendable, Hashable, Codable {
        public var id: String
        public var originalId: String
        public var productId: String
        public var signedTransaction: String
        public var appAccountToken: String?
        /// Milliseconds since 1970.
        public var purchaseDate: Int64
        public var revocationDate: Int64?
    }

    /// Applies the events due by the clock's now and queues their notifications.
    public func tick() throws {
        hand(try population.advance(to: clock.now))
    }

    /// Runs a device's action now; the transactions the device received.
    public func perform(_ action: PopulationSimulator.DeviceAction, customerId: String) throws -> [DeviceTransaction] {
        let output = try population.perform(action, customerId: customerId, at: clock.now)
        hand(output)
        return try output.purchases.filter { $0.customerId == customerId }.compactMap { try deviceTransaction(id: $0.transactionId) }
    }

    /// The customer turns auto-renew off for `productId`'s group. When the app configured a
    /// real-time URL, Apple's cancellation sheet asks it first (a signed request, posted) and the
    /// customer does what `decision` says with the answer; what the sheet showed, or nil when it
    /// asked nothing and auto-renew went off at once.
    public func cancel(
        productId: String, customerId: String, decision: PopulationSimulator.RetentionDecision = .decline
    ) async throws -> (transactions: [DeviceTransaction], retention: RetentionOutcome?) {
        let store = population.store
        guard let url = retentionMessaging?.realtimeURL(bundleId: store.bundleId, environment: store.environment) else {
            return (try perform(.setAutoRenew(productId: productId, on: false), customerId: customerId), nil)
        }
        let (opened, sheet) = try population.openCancellationSheet(customerId: customerId, productId: productId, at: clock.now)
        hand(opened)
        guard let request = sheet else {
            return (try perform(.setAutoRenew(productId: productId, on: false), customerId: customerId), nil)
        }
        let signed = try population.signer.signRealtimeRequest(request, store: store, signedDate: clock.now)
        let answer = await ask(url, body: try JSONEncoder().encode(RealtimeRequestBody(signedPayload: signed)))
        let output = try population.resolveCancellationSheet(request, answer: answer, decision: decision, at: clock.now)
        hand(output)
        let transactions = try output.purchases.filter { $0.customerId == customerId }.compactMap { try deviceTransaction(id: $0.transactionId) }
        return (transactions, population.retentionOutcomes[request.originalTransactionId]?.last)
    }

    /// Posts a real-time request; the app's answer, or nil for anything but a readable 200 in time.
    func ask(_ url: URL, body: Data) async -> RealtimeResponseBody? {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(body)
        let timeout = retentionTimeout.components
        let nanoseconds = timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000
        guard let response = try? await client.execute(request, timeout: .nanoseconds(max(1, nanoseconds))),
            let bytes = try? await response.body.collect(upTo: 1 << 20), response.status.code == 200
        else { return nil }
        return try? JSONDecoder().decode(RealtimeResponseBody.self, from: Data(bytes.readableBytesView))
    }

    /// The latest transaction of everything the customer owns now (StoreKit's current
    /// entitlements), signed now.
    public func currentEntitlements(customerId: String) throws -> [DeviceTransaction] {
        let now = clock.now
        let store = population.store
        var latest: [String: JWSTransactionDecodedPayload] = [:]
        for transaction in store.transactions(ofCustomer: customerId) {
            guard let chain = transaction.originalTransactionId, transaction.revocationDate == nil else { continue }
            switch transaction.type {
            case .autoRenewableSubscription, .nonRenewingSubscription:
                guard let expires = transaction.expiresDate, expires > now || transaction.type == .nonRenewingSubscription else { continue }
            case .nonConsumable: break
            default: continue
            }
            if let current = latest[chain], (current.purchaseDate ?? .distantPast) >= (transaction.purchaseDate ?? .distantPast) { continue }
            latest[chain] = transaction
        }
        return try latest.values.sorted { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) }.compactMap {
            try $0.transactionId.flatMap(deviceTransaction(id:))
        }
    }

    /// Transactions the device received that the app has not finished.
    public func unfinishedTransactions(customerId: String) throws -> [DeviceTransaction] {
        try (unfinished[customerId] ?? []).compactMap(deviceTransaction(id:))
    }

    /// The app finished a transaction (delivered its content).
    public func finish(customerId: String, transactionId: String) {
        unfinished[customerId]?.removeAll { $0 == transactionId }
    }

    /// The products on sale.
    public var products: [SimulatedProduct] { population.catalog }

    func hand(_ output: LifecycleOutput) {
        for purchase in output.purchases { unfinished[purchase.customerId, default: []].append(purchase.transactionId) }
        for record in output.notifications { _ = delivery?.enqueue(record) }
    }

    func deviceTransaction(id: String) throws -> DeviceTransaction? {
        guard let transaction = population.store.transaction(id: id), let chain = transaction.originalTransactionId,
            let product = transaction.productId
        else { return nil }
        return DeviceTransaction(
            id: id, originalId: chain, productId: product,
            signedTransaction: try population.signer.signTransaction(transaction, signedDate: clock.now),
            appAccountToken: transaction.appAccountToken,
            purchaseDate: Int64(((transaction.purchaseDate ?? clock.now).timeIntervalSince1970 * 1000).rounded(.down)),
            revocationDate: transaction.revocationDate.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) })
    }
}
