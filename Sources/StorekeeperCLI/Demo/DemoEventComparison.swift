import AppStoreModels
import AppStoreSimulator
import Foundation
import StorekeeperStore

/// Compares the customer events the demo's backend received with the simulator's truth of
/// transitions: every notification Apple generated (delivered or lost), read in order per
/// subscription and turned into the events it stands for — independently of the engine.
/// Counts are compared per subscription and event type; the customer the backend refuses is
/// left out (their events never arrive: that is what opens their problem).
struct DemoEventComparison {
    let world: DemoWorld
    let receiver: DemoReceiver
    /// What each chain's customer was shown on the cancellation sheets they opened.
    var retention: [String: [RetentionOutcome]] = [:]

    struct Result: Sendable {
        var total = 0
        var matched = 0
        var mismatches: [String] = []
        /// The RevenueCat-format deliveries: how many Storekeeper events were checked against
        /// theirs, what did not match, and how many arrived of each RevenueCat type.
        var revenueCatChecked = 0
        var revenueCatMismatches: [String] = []
        var revenueCatCounts: [String: Int] = [:]
        var allMatched: Bool { matched == total && revenueCatMismatches.isEmpty }
    }

    /// The events Apple's notifications stand for, per original transaction id and type.
    func truth() -> [String: [String: Int]] {
        var result: [String: [String: Int]] = [:]
        let records = world.store.allNotifications.filter { $0.firstSendDate <= world.end }.sorted { $0.firstSendDate < $1.firstSendDate }
        struct Chain {
            var paid = false
            var trial = false
            var product: String?
        }
        var chains: [String: Chain] = [:]
        for record in records {
            guard let chainId = record.originalTransactionId,
                world.store.customer(ofTransaction: chainId) != DemoWorld.failingCustomer
            else { continue }
            var chain = chains[chainId] ?? Chain()
            let transaction = record.transactionId.flatMap { world.store.transaction(id: $0) }
            let isTrial = transaction?.offerDiscountType == .freeTrial
            func add(_ types: EventType...) {
                for type in types { result[chainId, default: [:]][type.rawValue, default: 0] += 1 }
            }
            switch record.notificationType {
            case .subscribed:
                if isTrial {
                    add(.trialStarted)
                } else if !chain.paid {
                    add(.subscriptionStarted)
                    if chain.trial { add(.trialConverted) }
                } else if transaction?.productId != chain.product {
                    add(.productChanged)
                } else {
                    add(.renewed)
                }
                chain.paid = chain.paid || !isTrial
                chain.trial = isTrial
                chain.product = transaction?.productId ?? chain.product
            case .didRenew:
                if !chain.paid {
                    add(.subscriptionStarted)
                    if chain.trial { add(.trialConverted) }
                } else if transaction?.productId != chain.product {
                    add(.productChanged)
                } else if record.subtype == .billingRecovery {
                    add(.billingRecovered, .renewed)
                } else {
                    add(.renewed)
                }
                chain.paid = true
                chain.trial = false
                chain.product = transaction?.productId ?? chain.product
            case .didChangeRenewalPref where record.subtype == .upgrade:
                add(.productChanged)
                chain.product = transaction?.productId ?? chain.product
            case .didChangeRenewalStatus:
                add(record.subtype == .autoRenewDisabled ? .autoRenewDisabled : .autoRenewEnabled)
            case .didFailToRenew:
                add(.billingIssue)
                if record.subtype == .gracePeriod { add(.gracePeriodStarted) }
            case .expired:
                add(chain.trial ? .trialExpired : .expired)
            case .refund:
                add(.refunded)
            case .revoke:
                add(.revoked)
            case .oneTimeCharge:
                add(.oneTimePurchase)
            case .priceIncrease:
                add(.priceIncrease)
            default:
                break
            }
            chains[chainId] = chain
        }
        for (chainId, outcomes) in retention where world.store.customer(ofTransaction: chainId) != DemoWorld.failingCustomer {
            for type in outcomes.compactMap({ DemoRetention.eventType(shown: $0.shown) }) {
                result[chainId, default: [:]][type.rawValue, default: 0] += 1
            }
        }
        return result
    }

    func compare() -> Result {
        let expected = truth()
        var received: [String: [String: Int]] = [:]
        for event in receiver.events where event.customerId != DemoWorld.failingCustomer {
            guard let chain = event.originalTransactionId else { continue }
            received[chain, default: [:]][event.type, default: 0] += 1
        }
        var result = Result()
        for chain in Set(expected.keys).union(received.keys).sorted() {
            let want = expected[chain] ?? [:]
            let got = received[chain] ?? [:]
            for type in Set(want.keys).union(got.keys).sorted() {
                result.total += 1
                if want[type] == got[type] {
                    result.matched += 1
                } else {
                    result.mismatches.append("\(chain) \(type): received \(got[type] ?? 0), truth \(want[type] ?? 0)")
                }
            }
        }
        if receiver.badSignatures > 0 {
            result.total += 1
            result.mismatches.append("\(receiver.badSignatures) webhook posts had no valid signature")
        }
        let revenueCat = DemoRevenueCatCheck.compare(receiver: receiver)
        result.revenueCatChecked = revenueCat.checked
        result.revenueCatMismatches = revenueCat.mismatches
        result.revenueCatCounts = revenueCat.counts
        return result
    }
}
