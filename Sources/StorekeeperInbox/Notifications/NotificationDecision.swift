import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// What one inbox row amounts to, decided with no write: ``InboxProcessor`` turns it into a
/// changeset and commits it with the rest of its run.
package enum NotificationDecision: Sendable {
    /// Facts to record through the intake (the row then reads `processed`), and for a V1 row
    /// the chains it asks reconciliation to refresh.
    case record(FactSubmission, refreshes: [String])
    /// A V2 notification whose `notificationUUID` another row already processed.
    case duplicate(NotificationMetadata)
    /// Not believed: the row is marked rejected with this reason and changes nothing else.
    case rejected(InboxRejection, NotificationMetadata?)
}

/// Why an inbox row is rejected. Its ``description`` is the reason the row keeps (a code, a
/// colon, a sentence), which operators read in the inbox and the logs.
package enum InboxRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The row's app is no longer configured.
    case unknownApp(String)
    /// A body of neither shape.
    case malformed(String)
    /// A V2 signed payload (or its nested data) that does not verify for the app: the
    /// verifier's reason and message.
    case unverified(reason: String, message: String)
    /// A V1 body (stored before the door checked passwords) whose password does not match.
    case invalidPassword
    /// A V1 body without the signed receipt its facts would come from.
    case unsigned
    /// A V1 body whose signed receipt does not verify.
    case invalidReceipt(status: Int, detail: String)
    /// Data the app's ``FraudFilter`` refuses (bundle, environment, catalog).
    case refused(FraudFilter.Refusal)

    package var description: String {
        switch self {
        case .unknownApp(let appId): "unknown_app: no app \(appId) is configured"
        case .malformed(let detail): "malformed: \(detail)"
        case .unverified(let reason, let message): "\(reason): \(message)"
        case .invalidPassword: "invalid_password: the V1 password does not match the shared secret"
        case .unsigned: "unsigned: the V1 notification carries no unified_receipt.latest_receipt"
        case .invalidReceipt(let status, let detail): "invalid_receipt: status \(status): \(detail)"
        case .refused(let refusal): refusal.description
        }
    }
}

/// Decides inbox rows of a configured app: a V2 body from its verification (the JWS and its
/// nested data), a V1 body from the signed receipt it carries. Reads the store only to find
/// another row that processed the same `notificationUUID`.
package struct NotificationDecider: Sendable {
    package let store: any InboxProcessor.Storage
    /// Notifications this process's route verified when it stored their rows.
    package let door: VerifiedAtDoor?

    /// The decision for `row` (whose id is `id`) of `app` at `now`. `verification` is the V2
    /// body's, when the batch verified it ahead; `reads` what the row's run fetched ahead.
    package func decide(
        _ row: InboxNotification, id: Int64, app: AppRuntime, now: Date, verification: InboxProcessor.V2Verification?, reads: PrefetchedReads?
    ) async -> NotificationDecision {
        switch row.version {
        case .v2:
            let outcome: InboxProcessor.V2Verification
            if let verification { outcome = verification } else { outcome = await InboxProcessor.verifyV2(row, app: app, now: now, door: door) }
            switch outcome {
            case .refused(let rejection): return .rejected(rejection, nil)
            case .verified(let verified, let signedPayload):
                return await decideV2(row, id: id, app: app, now: now, verified: verified, signedPayload: signedPayload, reads: reads)
            }
        case .v1:
            return decideV1(row, id: id, app: app, now: now)
        }
    }

    /// A verified V2 notification: refused by the app's filter, a repeat, or its facts (each
    /// kept with the signed data it was taken from) and its events.
    private func decideV2(
        _ row: InboxNotification, id: Int64, app: AppRuntime, now: Date, verified: VerifiedNotification, signedPayload: String,
        reads: PrefetchedReads?
    ) async -> NotificationDecision {
        let notification = verified.notification
        let chain = verified.transaction?.originalTransactionId ?? verified.renewalInfo?.originalTransactionId
        let metadata = NotificationMetadata.of(notification, chain: chain)
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let refusal = filter.check(
            bundleId: verified.transaction?.bundleId ?? notification.data?.bundleId,
            environment: notification.data?.environment ?? verified.transaction?.environment,
            productIds: [verified.transaction?.productId].compactMap { $0 })
        {
            return .rejected(.refused(refusal), metadata)
        }
        if let uuid = notification.notificationUUID, await isProcessed(uuid, appId: row.appId, exceptId: id, reads: reads) {
            return .duplicate(metadata)
        }
        var history = PurchaseHistory()
        history.add(notification: notification, transaction: verified.transaction, renewalInfo: verified.renewalInfo)
        // The inbox row's outcome is the record of the notification (the customer's timeline
        // lists it by chain): no event row says it again.
        var events: [EventRecord] = []
        if notification.notificationType == .consumptionRequest, let uuid = metadata.notificationUUID, let transaction = verified.transaction {
            events.append(
                CustomerEvents.consumptionRequested(
                    runtime: app, notificationUUID: uuid, transaction: transaction, at: notification.signedDate ?? now))
        }
        // Each fact keeps the signed data it was taken from (the transaction's or the renewal
        // info's JWS, verifiable on its own); the notification itself stays in the inbox, so
        // its 16 KB are stored once, not once more per fact.
        let facts = FactSubmission.facts(of: history).map { fact in
            let signed: String? =
                switch fact {
                case .purchase: notification.data?.signedTransactionInfo
                case .renewal: notification.data?.signedRenewalInfo
                case .revocation: nil
                }
            return SubmittedFact(fact: fact, raw: signed ?? signedPayload)
        }
        return .record(
            FactSubmission(
                signed: facts, source: .notificationV2, binding: .apple(appAccountToken: verified.transaction?.appAccountToken),
                events: events, inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now)),
            refreshes: [])
    }

    /// Whether another row carrying `uuid` was processed (a failed read counts as no).
    private func isProcessed(_ uuid: String, appId: String, exceptId: Int64, reads: PrefetchedReads?) async -> Bool {
        if let known = reads?.isProcessed(appId: appId, notificationUUID: uuid, exceptId: exceptId) { return known }
        return (try? await store.isProcessed(appId: appId, notificationUUID: uuid, exceptId: exceptId)) == true
    }

    /// A V1 (legacy) notification.
    ///
    /// The notification route stored it only after its `password` matched the app's shared
    /// secret, and stored it without the password. Its JSON is not signed, so none of it is
    /// believed as a fact: the facts come from Apple's signed `unified_receipt.latest_receipt`,
    /// verified like any receipt (chain to Apple's root, bundle, environment). The unsigned
    /// parts (`latest_receipt_info`, `pending_renewal_info`, the top-level renewal fields) are
    /// only a hint: the chains they name get a refresh from the App Store Server API when the
    /// app has credentials.
    private func decideV1(_ row: InboxNotification, id: Int64, app: AppRuntime, now: Date) -> NotificationDecision {
        guard let notification = try? JSONDecoder().decode(NotificationV1.self, from: Data(row.body.utf8)) else {
            return .rejected(.malformed("the body is not a V1 notification"), nil)
        }
        let hintedChains = Self.chainsNamed(by: notification)
        let metadata = NotificationMetadata.of(notification)
        // Rows stored before the route checked passwords still carry theirs: check it again.
        if let password = notification.password {
            guard let secret = app.configuration.sharedSecret, ConstantTime.equals(password, secret) else {
                return .rejected(.invalidPassword, metadata)
            }
        }
        let receipt: AppReceipt
        switch Self.verifyLatestReceipt(of: notification, app: app, now: now) {
        case .failure(let rejection): return .rejected(rejection, metadata)
        case .success(let verified): receipt = verified
        }
        var history = PurchaseHistory()
        history.add(receipt: receipt.legacyReceipt(requestDate: now))
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let refusal = filter.check(
            bundleId: receipt.bundleId, environment: receipt.environment, productIds: history.purchases.values.map(\.productId))
        {
            return .rejected(.refused(refusal), metadata)
        }
        return .record(
            FactSubmission(
                facts: FactSubmission.facts(of: history, environment: receipt.environment.rawValue), source: .notificationV1, raw: row.body,
                binding: .apple(appAccountToken: nil), events: [],
                inboxOutcome: InboxOutcome(inboxId: id, state: .processed, metadata: metadata, processedAt: now)),
            refreshes: app.configuration.appStoreServerAPI == nil ? [] : hintedChains)
    }

    /// Verifies the signed receipt a V1 notification carries with the app's receipt verifier.
    package static func verifyLatestReceipt(of notification: NotificationV1, app: AppRuntime, now: Date) -> Result<AppReceipt, InboxRejection> {
        guard let latest = notification.unifiedReceipt?.latestReceipt, !latest.isEmpty else { return .failure(.unsigned) }
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let refusal = filter.checkReceipt(latest) { return .failure(.refused(refusal.refusal)) }
        switch app.receiptVerifier.verify(base64Encoded: latest, now: now) {
        case .invalid(let status, let reason):
            return .failure(.invalidReceipt(status: status.rawValue, detail: InboxText.clean(reason, limit: 200)))
        case .valid(let receipt):
            guard receipt.bundleId == app.configuration.bundleId else { return .failure(.refused(.bundleMismatch(receipt: true))) }
            return .success(receipt)
        }
    }

    /// The chains the unsigned parts of a V1 notification name (at most a few, cleaned).
    package static func chainsNamed(by notification: NotificationV1) -> [String] {
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

    package static func isChainIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

extension NotificationMetadata {
    /// What a verified V2 notification's inbox row is listed by; `chain` is the chain its
    /// transaction or renewal info names. Written with the row when it arrives and again with
    /// its outcome, the same values: the outcome changes no indexed column.
    package static func of(_ notification: ResponseBodyV2DecodedPayload, chain: String?) -> NotificationMetadata {
        NotificationMetadata(
            notificationUUID: InboxText.field(notification.notificationUUID),
            notificationType: InboxText.field(notification.notificationType?.rawValue),
            subtype: InboxText.field(notification.subtype?.rawValue), originalTransactionId: InboxText.field(chain),
            signedDate: notification.signedDate, environment: InboxText.field(notification.data?.environment?.rawValue))
    }

    /// What a V1 notification's inbox row is listed by (its JSON, not signed: a listing only).
    package static func of(_ notification: NotificationV1) -> NotificationMetadata {
        NotificationMetadata(
            notificationType: InboxText.field(notification.notificationType?.rawValue),
            originalTransactionId: InboxText.field(notification.originalTransactionId ?? NotificationDecider.chainsNamed(by: notification).first),
            environment: InboxText.field(notification.environment?.rawValue))
    }
}
