import AppStoreModels
import Foundation
import PropertyBased
import SubscriptionEngine
import SubscriptionReport
import Testing

/// A random subscription history: each number describes one period (its length, a gap before
/// it, whether it was refunded, family-shared, or began with a trial), chained on one or two
/// original transaction ids.
private func randomHistory(_ codes: [Int], refunds: Bool = true) -> ScenarioHistory {
    var history = ScenarioHistory()
    var day = 0.0
    for (index, code) in codes.enumerated() {
        let length = Double(1 + code % 40)
        let gap = (code / 40) % 5 == 0 ? Double((code / 200) % 70) : 0
        let chain = gap > 60 ? "late" : "first"
        let start = day + gap
        var period = ScenarioHistory.sub("t\(index)", chain, "basic.monthly", start, start + length)
        if refunds, (code / 7) % 6 == 0 { period.revokedAt = start + length / 2 }
        if index == 0, code % 3 == 0 { period.offer = .freeTrial }
        history.periods.append(period)
        day = start + length
    }
    for chain in Set(history.periods.map(\.original)) {
        let willRenew = codes.first.map { $0 % 2 == 0 } ?? true
        history.renewals.append(.init(original: chain, product: "basic.monthly", willRenew: willRenew, intent: willRenew ? nil : 1))
    }
    return history
}

private let periodCodes = Gen.int(in: 0...99_999).array(of: 1...12)
private let instants = Gen.int(in: -5...500)

/// A deterministic shuffle driven by `seed`.
private func shuffled<T>(_ items: [T], seed: Int) -> [T] {
    var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
    return items.shuffled(using: &generator)
}

private func state(_ history: PurchaseHistory, at day: Int) -> CustomerState {
    CustomerState(history: history, catalog: scenarioCatalog, at: ScenarioHistory.day(Double(day)))
}

@Suite("Properties")
struct PropertyTests {
    @Test("input order never matters")
    func orderDoesNotMatter() async throws {
        await propertyCheck(input: periodCodes, instants, Gen.int(in: 0...1_000_000)) { codes, day, seed in
            guard let facts = try? StatusInput(json: randomHistory(codes).storeKit2JSON).history else {
                Issue.record("history did not decode")
                return
            }
            let purchases = Array(facts.purchases.values)
            let renewals = Array(facts.renewals.values)
            let reordered = PurchaseHistory(purchases: shuffled(purchases, seed: seed), renewals: shuffled(renewals, seed: seed &+ 1))
            let twice = reordered.merging(PurchaseHistory(purchases: shuffled(purchases, seed: seed &+ 2)))
            #expect(state(facts, at: day) == state(reordered, at: day))
            #expect(state(facts, at: day) == state(twice, at: day))
        }
    }

    @Test("adding a later renewal never shortens access")
    func laterRenewalNeverShortens() async throws {
        await propertyCheck(input: periodCodes, instants, Gen.int(in: 1...60)) { codes, day, length in
            var history = randomHistory(codes, refunds: false)
            guard let last = history.periods.last, let lastEnd = last.end,
                let before = try? StatusInput(json: history.storeKit2JSON).history
            else { return }
            history.periods.append(ScenarioHistory.sub("renewal", last.original, "basic.monthly", lastEnd, lastEnd + Double(length)))
            guard let after = try? StatusInput(json: history.storeKit2JSON).history else { return }
            let old = state(before, at: day)
            let new = state(after, at: day)
            for subscription in old.subscriptions where subscription.hasAccess {
                let renewed = new.subscription(subscription.originalTransactionId)
                #expect(renewed?.hasAccess == true)
                #expect((renewed?.accessEndsDate ?? .distantPast) >= (subscription.accessEndsDate ?? .distantPast))
            }
            #expect(Set(old.entitlements.map(\.identifier)).isSubset(of: Set(new.entitlements.map(\.identifier))))
        }
    }

    @Test("a refunded period never grants access once refunded")
    func refundedPeriodGrantsNothing() async throws {
        await propertyCheck(input: periodCodes, instants) { codes, day in
            guard let history = try? StatusInput(json: randomHistory(codes).verifyReceiptJSON).history else { return }
            let instant = ScenarioHistory.day(Double(day))
            let result = state(history, at: day)
            let refunded = Set(history.purchases.values.filter { ($0.revocation?.date ?? .distantFuture) <= instant }.map(\.transactionId))
            for subscription in result.subscriptions where subscription.hasAccess {
                #expect(!refunded.contains(subscription.transactionId))
            }
            for entitlement in result.entitlements {
                #expect(!refunded.contains(entitlement.transactionId))
            }
        }
    }

    @Test("every source of the same history agrees")
    func sourcesAgree() async throws {
        await propertyCheck(input: periodCodes, instants) { codes, day in
            let scenario = randomHistory(codes)
            guard let modern = try? StatusInput(json: scenario.storeKit2JSON).history,
                let legacy = try? StatusInput(json: scenario.verifyReceiptJSON).history
            else {
                Issue.record("history did not decode")
                return
            }
            let both = modern.merging(legacy)
            let states = [modern, legacy, both].map { state($0, at: day) }
            for other in states.dropFirst() {
                #expect(other.subscriptions.map(\.status) == states[0].subscriptions.map(\.status))
                #expect(other.subscriptions.map(\.accessEndsDate) == states[0].subscriptions.map(\.accessEndsDate))
                #expect(other.entitlements.map(\.identifier) == states[0].entitlements.map(\.identifier))
                #expect(other.eligibility == states[0].eligibility)
            }
        }
    }
}
