import AppStoreModels
import Foundation
import Synchronization

/// The simulated App Store's memory for one app: customers, every transaction it issued, the
/// truth of every subscription, orders, and the notification history.
///
/// The lifecycle writes it; the HTTP endpoints read it (and apply the few writes Apple's API
/// allows: renewal-date extensions, app account tokens, test notifications, consumption
/// answers). All access is serialized by one lock; values come out as copies.
public final class SimulatedAppStore: Sendable {
    public let bundleId: String
    public let appAppleId: Int64
    public let environment: AppStoreEnvironment

    struct State {
        var transactions: [String: JWSTransactionDecodedPayload] = [:]
        /// Transaction id → the account it belongs to.
        var owners: [String: String] = [:]
        /// Per account, its transaction ids in the order they were last modified.
        var transactionsByCustomer: [String: [String]] = [:]
        /// Transaction id → modification sequence number (for Apple's "sorted by modified date").
        var modified: [String: Int] = [:]
        var sequence = 0
        var subscriptions: [String: SubscriptionTruth] = [:]
        /// Per account, its subscriptions' original transaction ids.
        var subscriptionsByCustomer: [String: Set<String>] = [:]
        var orders: [String: [String]] = [:]
        var appTransactionIds: [String: String] = [:]
        var notifications: [NotificationRecord] = []
        var notificationIndex: [String: Int] = [:]
        var consumptionAnswers: [String: [ConsumptionRequest]] = [:]
        var extensionRequests: Set<String> = []
        var billingEpisodes: [String: [BillingEpisode]] = [:]
    }

    let state = Mutex(State())

    public init(bundleId: String, appAppleId: Int64, environment: AppStoreEnvironment) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }

    // MARK: Transactions

    /// Stores (or replaces, e.g. on revocation) a transaction of `customerId`'s account.
    public func record(_ transaction: JWSTransactionDecodedPayload, customerId: String, orderId: String? = nil) {
        guard let id = transaction.transactionId else { return }
        state.withLock { state in
            if state.transactions[id] == nil {
                state.transactionsByCustomer[customerId, default: []].append(id)
                if let orderId { state.orders[orderId, default: []].append(id) }
            }
            state.transactions[id] = transaction
            state.owners[id] = customerId
            state.sequence += 1
            state.modified[id] = state.sequence
        }
    }

    /// The transaction with this id.
    public func transaction(id: String) -> JWSTransactionDecodedPayload? {
        state.withLock { $0.transactions[id] }
    }

    /// The account a transaction belongs to.
    public func customer(ofTransaction id: String) -> String? {
        state.withLock { $0.owners[id] }
    }

    /// Every transaction of the account, oldest modification first.
    public func transactions(ofCustomer customerId: String) -> [JWSTransactionDecodedPayload] {
        state.withLock { state in
            (state.transactionsByCustomer[customerId] ?? [])
                .sorted { (state.modified[$0] ?? 0) < (state.modified[$1] ?? 0) }
                .compactMap { state.transactions[$0] }
        }
    }

    /// Every transaction with the account it belongs to, by transaction id.
    public func allTransactions() -> [(customerId: String, transaction: JWSTransactionDecodedPayload)] {
        state.withLock { state in
            state.transactions.keys.sorted().compactMap { id in
                guard let transaction = state.transactions[id], let owner = state.owners[id] else { return nil }
                return (owner, transaction)
            }
        }
    }

    /// The transactions bought in one order (Apple's order lookup).
    public func transactions(ofOrder orderId: String) -> [JWSTransactionDecodedPayload] {
        state.withLock { state in (state.orders[orderId] ?? []).compactMap { state.transactions[$0] } }
    }

    /// The app transaction id of an account (one per account and app).
    public func appTransactionId(ofCustomer customerId: String) -> String {
        state.withLock { state in
            if let id = state.appTransactionIds[customerId] { return id }
            let id = String(700_000_000_000_000 + state.appTransactionIds.count + 1)
            state.appTransactionIds[customerId] = id
            return id
        }
    }

    // MARK: Subscriptions

    /// Stores the truth of one subscription.
    public func update(_ subscription: SubscriptionTruth) {
        state.withLock { state in
            if let previous = state.subscriptions[subscription.originalTransactionId], previous.customerId != subscription.customerId {
                state.subscriptionsByCustomer[previous.customerId]?.remove(subscription.originalTransactionId)
            }
            state.subscriptions[subscription.originalTransactionId] = subscription
            state.subscriptionsByCustomer[subscription.customerId, default: []].insert(subscription.originalTransactionId)
        }
    }

    /// The truth of one subscription.
    public func subscription(_ originalTransactionId: String) -> SubscriptionTruth? {
        state.withLock { $0.subscriptions[originalTransactionId] }
    }

    /// Every subscription, sorted by original transaction id.
    public func subscriptions() -> [SubscriptionTruth] {
        state.withLock { Array($0.subscriptions.values) }.sorted { $0.originalTransactionId < $1.originalTransactionId }
    }

    /// The account's subscriptions.
    public func subscriptions(ofCustomer customerId: String) -> [SubscriptionTruth] {
        state.withLock { state in (state.subscriptionsByCustomer[customerId] ?? []).compactMap { state.subscriptions[$0] } }
            .sorted { $0.originalTransactionId < $1.originalTransactionId }
    }

    /// Changes one subscription under the lock (its chain and owner stay); returns the new value
    /// (nil if unknown).
    @discardableResult
    public func modify(_ originalTransactionId: String, _ change: (inout SubscriptionTruth) -> Void) -> SubscriptionTruth? {
        state.withLock { state in
            guard var value = state.subscriptions[originalTransactionId] else { return nil }
            let owner = value.customerId
            change(&value)
            // The chain and its owner are identity, not state.
            value.originalTransactionId = originalTransactionId
            value.customerId = owner
            state.subscriptions[originalTransactionId] = value
            return value
        }
    }

    // MARK: Billing

    /// Apple failed to charge the renewal of `chain` due at `due`: billing retry begins, with a
    /// grace period until `graceEnd` when the app has one.
    public func beginBillingEpisode(_ chain: String, due: Date, graceEnd: Date?) {
        state.withLock { $0.billingEpisodes[chain, default: []].append(BillingEpisode(due: due, graceEnd: graceEnd)) }
    }

    /// The open billing episode of `chain` ends at `date`: the charge went through, or Apple gave up.
    public func endBillingEpisode(_ chain: String, at date: Date, recovered: Bool) {
        state.withLock { state in
            guard let index = state.billingEpisodes[chain]?.lastIndex(where: { $0.ended == nil }) else { return }
            state.billingEpisodes[chain]?[index].ended = date
            state.billingEpisodes[chain]?[index].recovered = recovered
        }
    }

    /// The billing episodes of `chain`, oldest first.
    public func billingEpisodes(_ chain: String) -> [BillingEpisode] {
        state.withLock { $0.billingEpisodes[chain] ?? [] }
    }

    // MARK: Notifications

    /// Adds a notification to the history.
    public func recordNotification(_ record: NotificationRecord) {
        state.withLock { state in
            if let index = state.notificationIndex[record.notificationUUID] {
                state.notifications[index] = record
            } else {
                state.notificationIndex[record.notificationUUID] = state.notifications.count
                state.notifications.append(record)
            }
        }
    }

    /// Records one attempt to send a notification.
    public func recordSendAttempt(notificationUUID: String, at date: Date, result: SendAttemptResult) {
        state.withLock { state in
            guard let index = state.notificationIndex[notificationUUID] else { return }
            state.notifications[index].sendAttempts.append(SendAttemptItem(attemptDate: date, sendAttemptResult: result))
        }
    }

    /// The notification with this UUID.
    public func notification(_ uuid: String) -> NotificationRecord? {
        state.withLock { state in state.notificationIndex[uuid].map { state.notifications[$0] } }
    }

    /// Notifications first sent in `[start, end)`, in send order.
    public func notifications(from start: Date, to end: Date) -> [NotificationRecord] {
        state.withLock { $0.notifications.filter { $0.firstSendDate >= start && $0.firstSendDate < end } }
    }

    /// The test notification requested with `token`.
    public func testNotification(token: String) -> NotificationRecord? {
        state.withLock { $0.notifications.last { $0.testNotificationToken == token } }
    }

    /// Every notification, in send order.
    public var allNotifications: [NotificationRecord] {
        state.withLock { $0.notifications }
    }

    // MARK: Answers the app sends

    /// Keeps a consumption answer for a transaction.
    public func recordConsumption(_ request: ConsumptionRequest, transactionId: String) {
        state.withLock { $0.consumptionAnswers[transactionId, default: []].append(request) }
    }

    /// The consumption answers received for a transaction.
    public func consumptionAnswers(transactionId: String) -> [ConsumptionRequest] {
        state.withLock { $0.consumptionAnswers[transactionId] ?? [] }
    }

    /// Remembers an idempotent request id; false when it was seen before.
    public func claimRequestIdentifier(_ id: String) -> Bool {
        state.withLock { $0.extensionRequests.insert(id).inserted }
    }
}
