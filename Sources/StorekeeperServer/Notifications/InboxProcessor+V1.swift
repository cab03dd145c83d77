import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperStore
import SubscriptionEngine

extension InboxProcessor {
    /// Processes a V1 (legacy) notification.
    ///
    /// The notification route stored it only after its `password` matched the app's shared
    /// secret, and stored it without the password. Its JSON is not signed, so none of it is
    /// believed as a fact: the facts come from Apple's signed `unified_receipt.latest_receipt`,
    /// verified like any receipt (chain to Apple's root, bundle, environment). The unsigned
    /// parts (`latest_receipt_info`, `pending_renewal_info`, the top-level renewal fields) are
    /// only a hint: the chains they name get a refresh from the App Store Server API when the
    /// app has credentials.
    func processV1(_ row: InboxNotification, id: Int64, app: AppRuntime, now: Date) async throws -> Changeset {
        guard let notification = try? JSONDecoder().decode(NotificationV1.self, from: Data(row.body.utf8)) else {
            return Self.rejected(row, id: id, reason: "malformed: the body is not a V1 notification", now: now)
        }
        let hintedChains = Self.chainsNamed(by: notification)
        let metadata = NotificationMetadata(
            notificationType: InboxText.field(notification.notificationType?.rawValue),
            originalTransactionId: InboxText.field(notification.originalTransactionId ?? hintedChains.first),
            environment: InboxText.field(notification.environment?.rawValue))
        // Rows stored before the route checked passwords still carry theirs: check it again.
        if let password = notification.password {
            guard let secret = app.configuration.sharedSecret, ConstantTime.equals(password, secret) else {
                return Self.rejected(
                    row, id: id, reason: "invalid_password: the V1 password does not match the shared secret", now: now, metadata: metadata)
            }
        }
        let receipt: AppReceipt
        switch Self.verifyLatestReceipt(of: notification, app: app, now: now) {
        case .failure(let refusal): return Self.rejected(row, id: id, reason: refusal.reason, now: now, metadata: metadata)
        case .success(let verified): receipt = verified
        }
        var history = PurchaseHistory()
        history.add(receipt: receipt.legacyReceipt(requestDate: now))
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let reason = filter.check(
            bundleId: receipt.bundleId, environment: receipt.environment, productIds: history.purchases.values.map(\.productId))
        {
            return Self.rejected(row, id: id, reason: reason, now: now, metadata: metadata)
        }
        try await requestRefreshes(of: hintedChains, app: app, row: row, now: now)
        let event = EventRecord(
            appId: row.appId, originalTransactionId: metadata.originalTransactionId, type: .notificationProcessed,
            details: EventDetails(notificationType: metadata.notificationType, inboxId: "\(id)", version: "1"),
            occurredAt: now, idempotencyKey: "notification:\(row.idempotencyKey)")
        return try await intake.changeset(
            for: FactSubmission(
                facts: FactSubmission.facts(of: history, environment: receipt.environment.rawValue), source: .notificationV1, raw: row.body,
                binding: .apple(appAccountToken: nil),
                events: [event],
                inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now)), app: app, now: now)
    }

    /// Why a V1 notification's receipt is not believed.
    struct ReceiptRefusal: Error, Sendable {
        var reason: String
    }

    /// Verifies the signed receipt a V1 notification carries with the app's receipt verifier.
    static func verifyLatestReceipt(of notification: NotificationV1, app: AppRuntime, now: Date) -> Result<AppReceipt, ReceiptRefusal> {
        guard let latest = notification.unifiedReceipt?.latestReceipt, !latest.isEmpty else {
            return .failure(ReceiptRefusal(reason: "unsigned: the V1 notification carries no unified_receipt.latest_receipt"))
        }
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let refusal = filter.checkReceipt(latest) { return .failure(ReceiptRefusal(reason: refusal.reason)) }
        switch app.receiptVerifier.verify(base64Encoded: latest, now: now) {
        case .invalid(let status, let reason):
            return .failure(ReceiptRefusal(reason: "invalid_receipt: status \(status.rawValue): \(InboxText.clean(reason, limit: 200))"))
        case .valid(let receipt):
            guard receipt.bundleId == app.configuration.bundleId else {
                return .failure(ReceiptRefusal(reason: "bundle_mismatch: the receipt names another app's bundle id"))
            }
            return .success(receipt)
        }
    }

    /// The chains the unsigned parts of a V1 notification name (at most a few, cleaned).
    static func chainsNamed(by notification: NotificationV1) -> [String] {
        var chains: [String] = []
        let named =
            [notification.originalTransactionId]
            + (notification.unifiedReceipt?.pendingRenewalInfo ?? []).map(\.originalTransactionId)
            + (notification.unifiedReceipt?.latestReceiptInfo ?? []).prefix(20).map(\.originalTransactionId)
        for case let chain? in named where !chains.contains(chain) && Self.isChainIdentifier(chain) {
            chains.append(chain)
        }
        return Array(chains.prefix(10))
    }

    static func isChainIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// Asks reconciliation to look at the hinted chains now (apps with App Store Server API
    /// credentials only); a repeat of the same notification asks nothing more.
    private func requestRefreshes(of chains: [String], app: AppRuntime, row: InboxNotification, now: Date) async throws {
        guard app.configuration.appStoreServerAPI != nil else { return }
        for chain in chains {
            _ = try await store.enqueue(.refresh(appId: app.id, chain: chain, cause: .v1Notification(row.idempotencyKey), runAt: now))
        }
    }
}
