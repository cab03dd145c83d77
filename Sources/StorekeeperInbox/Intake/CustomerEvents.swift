import AppStoreModels
import Crypto
import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// Customer events: the engine's transitions of a chain (``Transition``) as event records with
/// everything a receiver needs, each with a stable id, and a delivery to every destination that
/// wants it — written in the same transaction as the facts that revealed them (the outbox).
///
/// A transition is recorded once whatever reveals it (any source, any order, any repeat, or the
/// clock passing its instant): its record's key is its id, and the log's keys are read first.
package enum CustomerEvents {
    /// How long after a period's end with a renewal still expected the expiry waits for Apple to
    /// say what happened, when the app has no App Store Server API access: Apple sends the
    /// renewal's outcome at the end, so two hours cover a late notification.
    package static let expirySettle: TimeInterval = 2 * 3600

    /// The same wait for an app that reconciles: its look at a period's end asks Apple once the
    /// notification history can tell (at most twelve hours after the end by default), so a lost
    /// renewal notification is found within a day.
    package static let reconciledExpirySettle: TimeInterval = 24 * 3600

    /// Whether a transition is an expiry that waits: a period that ended while a renewal was
    /// still expected, with nothing Apple signed since its end, less than `settle` before `now`.
    /// Apple always says how a renewal went (renewed, retrying, expired), so the clock alone
    /// calling it expired would be a guess that a late or lost notification proves wrong.
    package static func awaitsApple(_ transition: Transition, history: PurchaseHistory, settle: TimeInterval, now: Date) -> Bool {
        guard [.expired, .trialExpired].contains(transition.type), transition.state?.willAutoRenew != false,
            transition.occurredAt > now.addingTimeInterval(-settle)
        else { return false }
        let toldSince = history.renewalTimeline[transition.originalTransactionId]?.contains {
            ($0.signedDate ?? .distantPast) > transition.occurredAt
        }
        return toldSince != true
    }

    /// The event types that go out (every transition the engine derives).
    package static let types: Set<String> = Set(Transition.Kind.all.map(\.rawValue))

    /// The stable public id of a transition of `appId`.
    package static func eventId(appId: String, transition: Transition) -> String {
        publicId(appId: appId, key: transition.id)
    }

    /// An event's public id from its key in the app: `evt_` and 32 hex digits of a SHA-256 (at
    /// most 36 characters, as Mixpanel's `$insert_id` allows).
    package static func publicId(appId: String, key: String) -> String {
        let digest = SHA256.hash(data: Data((appId + "\u{1F}" + key).utf8))
        return "evt_" + StableDigest.hex(bytes: digest.prefix(16))
    }

    /// The events of `ledger` (one chain's entries, or a one-time purchase's) that happened by
    /// `now` and are not `recorded` (by key, or before the chain's horizon; `source` says what revealed them: a
    /// ``FactSource`` or `clock`), and the job that looks again at the chain's
    /// next transition by the clock.
    package static func events(
        runtime: AppRuntime, chain: String, ledger: [LedgerEntry], customer: String?, recorded: RecordedEvents, source: String, now: Date
    ) -> (events: [EventRecord], next: JobRecord?) {
        let app = runtime.configuration
        let history = PurchaseHistory(ledger: ledger)
        let catalog = app.catalog
        let transitions = history.transitions(catalog: catalog, until: now)
        let purchases = history.purchases
        var revenue: RevenueLedger?
        var events: [EventRecord] = []
        var held: [Date] = []
        let settle = app.appStoreServerAPI == nil ? expirySettle : reconciledExpirySettle
        for transition in transitions {
            // A period that ended while a renewal was still expected is only called expired
            // once Apple said so, or had time to say otherwise (a lost renewal notification is
            // caught by reconciliation's look after the end).
            if awaitsApple(transition, history: history, settle: settle, now: now) {
                held.append(transition.occurredAt.addingTimeInterval(settle))
                continue
            }
            let id = eventId(appId: app.id, transition: transition)
            let key = "event:" + id
            let formerKeys = transition.formerIds.map { "event:" + publicId(appId: app.id, key: $0) }
            guard !recorded.contains(key: key, occurredAt: transition.occurredAt), !formerKeys.contains(where: recorded.keys.contains)
            else { continue }
            if revenue == nil {
                revenue = RevenueLedger(
                    history: history, catalog: catalog, at: .distantFuture,
                    policy: CommissionPolicy(smallBusinessProgram: app.analytics.smallBusiness))
            }
            let purchase = purchases[transition.transactionId]
            var details = EventDetails(
                productId: transition.productId, expiresDate: transition.state?.expiresDate, transactionId: transition.transactionId)
            details.eventId = id
            details.source = source
            details.environment = purchase?.environment
            details.storefront = purchase?.storefront
            details.entitlements = catalog.entitlements(of: transition.productId)
            details.periodType = periodType(purchase?.offer?.kind)
            if let price = purchase?.price, !transition.type.rawValue.hasPrefix("entitlement.") {
                let amount = Decimal(price.milliunits) / 1000
                details.price = amount
                details.currency = price.currency
                details.reportingCurrency = app.analytics.reportingCurrency
                let rate = price.currency == app.analytics.reportingCurrency ? 1 : app.analytics.exchangeRates[price.currency]
                details.priceInReportingCurrency = rate.map { rounded(amount * $0) }
                if let proceeds = revenue?.transactions.first(where: { $0.transactionId == transition.transactionId })?.proceeds {
                    details.proceeds = Decimal(proceeds.milliunits) / 1000
                }
            }
            details.expirationReason =
                [.expired, .trialExpired].contains(transition.type) ? transition.state?.expirationReason?.rawValue : nil
            details.priceIncreaseConsent = transition.type == .priceIncrease ? transition.state?.priceIncreaseConsent?.rawValue : nil
            if transition.type == .productChanged { details.previousProductId = transition.previous?.productId }
            let environment = purchase?.environment
            var event = EventRecord(
                appId: app.id, customerId: customer, originalTransactionId: transition.originalTransactionId,
                type: EventType(transition.type), details: details, occurredAt: transition.occurredAt, idempotencyKey: key)
            event.destinations = runtime.destinations(type: EventType(transition.type), environment: environment)
            events.append(event)
        }
        let next = (history.chainTimelines(catalog: catalog).values.flatMap(\.segments).map(\.from) + held).filter { $0 > now }.min()
        let job = next.map { JobRecord.transitions(appId: app.id, chain: chain, runAt: $0) }
        return (events, job)
    }

    /// `consumption.requested`: Apple asks for consumption information about a refund request
    /// (its id from the notification's UUID, so a redelivery or a history sweep adds nothing).
    package static func consumptionRequested(
        runtime: AppRuntime, notificationUUID: String, transaction: JWSTransactionDecodedPayload, at date: Date
    ) -> EventRecord {
        let app = runtime.configuration
        let key = "\(EventType.consumptionRequested):" + notificationUUID.lowercased()
        var details = EventDetails(productId: transaction.productId, transactionId: transaction.transactionId)
        details.eventId = publicId(appId: app.id, key: key)
        details.environment = transaction.environment?.rawValue
        details.storefront = transaction.storefront
        details.entitlements = transaction.productId.map { app.catalog.entitlements(of: $0) }
        details.source = FactSource.notificationV2.rawValue
        var event = EventRecord(
            appId: app.id, originalTransactionId: transaction.originalTransactionId, type: .consumptionRequested, details: details,
            occurredAt: date, idempotencyKey: "event:" + key)
        event.destinations = runtime.destinations(type: .consumptionRequested, environment: details.environment)
        return event
    }

    package static func periodType(_ kind: OfferKind?) -> String {
        switch kind {
        case nil: "normal"
        case .freeTrial?: "trial"
        case .introductory?: "introductory"
        case .promotional?: "promotional"
        case .offerCode?: "offerCode"
        case .winBack?: "winBack"
        case .retention?: "retention"
        case .unknown?: "offer"
        }
    }

    package static func rounded(_ value: Decimal) -> Decimal {
        var input = value
        var output = Decimal()
        NSDecimalRound(&output, &input, 2, .bankers)
        return output
    }
}
