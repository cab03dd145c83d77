import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension JobRunner {
    /// A refresh at the engine's next look: unless a notification already moved the look, and
    /// once the notification history has been swept past the look's instant (a lost
    /// notification is recovered there without a call), ask Apple for the customer's statuses,
    /// record them, and plan the following look. So Apple is asked only where neither the
    /// notifications nor their history can tell: an expected renewal, billing outcome or
    /// expiry that left no trace.
    package func refresh(_ job: JobRecord, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws {
        let payload = try Self.decode(RefreshPayload.self, job)
        let chain = payload.originalTransactionId
        let now = clock()
        if let planned = payload.ledgerCount {
            let known = try await store.ledger(appId: app.id, originalTransactionId: chain)
            if known.count != planned {
                let state = CustomerState(history: PurchaseHistory(ledger: known), catalog: app.catalog, at: now)
                if let next = state.nextLooks[chain]?.date, next > now.addingTimeInterval(60) {
                    try await scheduleNextLook(chain: chain, app: app, now: now)
                    return
                }
                if state.nextLooks[chain]?.date == nil, state.subscription(chain) != nil { return }
            }
        }
        if let awaited = payload.awaitedMillis.map(Date.init(millisecondsSince1970:)),
            let later = try await historyPending(through: awaited, app: app, now: now)
        {
            try await store.enqueue(
                .refresh(appId: app.id, chain: chain, cause: .look(later), runAt: later, ledgerCount: payload.ledgerCount, awaited: awaited))
            return
        }
        let response: StatusResponse
        do {
            response = try await client.getAllSubscriptionStatuses(transactionId: chain)
        } catch let error as AppStoreServerAPIError where error.httpStatus == 404 {
            throw PermanentFailure(description: "Apple does not know \(chain): \(error)")
        }
        var signedTransactions: [String] = []
        var signedRenewals: [String] = []
        for group in response.data ?? [] {
            for item in group.lastTransactions ?? [] {
                if let transaction = item.signedTransactionInfo { signedTransactions.append(transaction) }
                if let renewal = item.signedRenewalInfo { signedRenewals.append(renewal) }
            }
        }
        let chains = try await record(
            app: app, signedTransactions: signedTransactions, signedRenewals: signedRenewals, source: .appStoreServerAPI, now: now)
        for recorded in chains.union([chain]).sorted() {
            try await scheduleNextLook(chain: recorded, app: app, now: now)
        }
    }

    /// `nil` when the notification history can tell what happened up to `awaited`: a completed
    /// notification-history sweep reaches past it and the inbox holds nothing of the app's left
    /// to process. Otherwise when to look again: after the next sweep, or once the inbox is
    /// worked off; never later than ``SchedulerConfiguration/historyWaitSeconds`` past
    /// `awaited`, when Apple is asked whatever the history says (sweeps failing or far behind).
    package func historyPending(through awaited: Date, app: AppRuntime, now: Date) async throws -> Date? {
        let deadline = awaited.addingTimeInterval(configuration.historyWaitSeconds)
        guard now < deadline else { return nil }
        let sweep = try await store.latestJob(appId: app.id, kind: JobKind.notificationSweep.rawValue, state: .done)
        let swept = sweep.flatMap { try? JSONDecoder().decode(SweepPayload.self, from: Data($0.payload.utf8)) }?.endMillis ?? .min
        if swept <= awaited.millisecondsSince1970 {
            return min(afterSweep(covering: max(now, awaited)), deadline)
        }
        let unprocessed = try await store.notifications(appId: app.id, filter: NotificationFilter(state: .pending, limit: 1))
        return unprocessed.isEmpty ? nil : min(now.addingTimeInterval(configuration.historySettleSeconds), deadline)
    }

    /// Verifies Apple's signed transactions and renewal infos with the app's verifiers and
    /// hands them to the intake, as notifications are (each signed item is kept as its own raw).
    /// Data that fails verification or names a product outside the catalog is skipped and
    /// logged. Returns the chains touched.
    @discardableResult
    package func record(
        app: AppRuntime, signedTransactions: [String], signedRenewals: [String], source: FactSource,
        binding: CustomerBinding = .apple(appAccountToken: nil), now: Date
    ) async throws -> Set<String> {
        var verified: [SubmittedFact] = []
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        var chains = Set<String>()
        for signed in signedTransactions {
            switch await app.verify(signedOnly: true, { await $0.verifyAndDecodeTransaction(signed, now: now) }) {
            case .invalid(let failure):
                logger.warning("Apple's transaction failed verification", metadata: ["app": "\(app.id)", "reason": "\(failure.reason.rawValue)"])
            case .valid(let transaction):
                guard let fact = PurchaseFact(transaction: transaction) else { continue }
                if let reason = filter.check(bundleId: transaction.bundleId, environment: transaction.environment, productIds: [fact.productId]) {
                    logger.warning("Apple's transaction refused", metadata: ["app": "\(app.id)", "reason": "\(reason)"])
                    continue
                }
                chains.insert(fact.originalTransactionId)
                verified.append(SubmittedFact(fact: .purchase(fact), raw: signed))
            }
        }
        for signed in signedRenewals {
            switch await app.verify(signedOnly: true, { await $0.verifyAndDecodeRenewalInfo(signed, now: now) }) {
            case .invalid(let failure):
                logger.warning("Apple's renewal info failed verification", metadata: ["app": "\(app.id)", "reason": "\(failure.reason.rawValue)"])
            case .valid(let renewal):
                guard let fact = RenewalFact(renewalInfo: renewal) else { continue }
                chains.insert(fact.originalTransactionId)
                verified.append(SubmittedFact(fact: .renewal(fact), raw: signed))
            }
        }
        if verified.isEmpty, case .apple = binding { return chains }
        try await FactIntake(store: store).record(
            FactSubmission(signed: verified, source: source, binding: binding), app: app, now: now)
        return chains
    }
}
