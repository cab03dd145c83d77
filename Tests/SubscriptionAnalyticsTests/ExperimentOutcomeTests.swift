import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// An experiment's per-customer outcome read from the figures of the customer's chains equals
/// the published definition applied to the customer's facts (README, "Experiments").
@Suite("Analytics: experiment outcomes from chain figures")
struct ExperimentOutcomeTests {
    static let analytics = ChainFiguresTests.analytics

    /// The definition over the customer's facts: purchaser-owned purchases at or after exposure;
    /// revenue and proceeds of the sales in each window, one chain at a time (the commission's
    /// year of paid service is the chain's, as in every metric).
    static func replay(_ chains: [PurchaseHistory], exposure: Date, now: Date) -> ExperimentOutcome {
        var outcome = ExperimentOutcome()
        let after = chains.flatMap { chain in
            chain.restricted(to: "Production").effectivePurchases.filter { $0.purchaseDate >= exposure && $0.ownership == .purchased }
        }
        let trials = after.filter { $0.offer?.kind == .freeTrial }.sorted { $0.purchaseDate < $1.purchaseDate }
        let paid = after.filter { ($0.price?.milliunits ?? 0) > 0 }
        outcome.trialStarted = !trials.isEmpty
        outcome.paying = !paid.isEmpty
        outcome.converted = trials.first.map { trial in paid.contains { $0.originalTransactionId == trial.originalTransactionId } } ?? false
        outcome.refunded = after.contains { $0.revocation?.kind == .refund || $0.revocation?.kind == .proratedRefund }
        for days in [7, 14, 30] {
            let end = min(now, exposure.addingTimeInterval(Double(days) * 86_400))
            let figures = analytics.revenue(of: chains, from: exposure, to: end, now: now)
            outcome.revenue[days] = figures.revenue.value
            outcome.proceeds[days] = figures.proceeds.value
        }
        return outcome
    }

    @Test(
        "random customers of one to three chains, exposed at random instants: the outcome from figures is the definition's",
        arguments: [UInt64(3), 4])
    func equalsDefinition(seed: UInt64) {
        let histories = SnapshotIndexTests.histories(seed: seed, chains: 90)
        var dice = SnapshotIndexTests.Dice(state: seed &+ 17)
        var start = 0
        var seen = ExperimentOutcome()
        while start < histories.count {
            let count = 1 + dice.next(3)
            let chains = Array(histories[start..<min(start + count, histories.count)])
            start += count
            let exposure = ChainFiguresTests.t0 + Double(dice.next(200)) * ChainFiguresTests.day
            let now = exposure + Double(3 + dice.next(60)) * ChainFiguresTests.day + 0.37 * ChainFiguresTests.day
            let figures = chains.map { Self.analytics.figures(ofChain: $0) }
            let outcome = Self.analytics.experimentOutcome(of: figures, exposure: exposure, now: now, days: [7, 14, 30])
            #expect(outcome == Self.replay(chains, exposure: exposure, now: now), "seed \(seed), chains from \(start - count)")
            seen.trialStarted = seen.trialStarted || outcome.trialStarted
            seen.converted = seen.converted || outcome.converted
            seen.paying = seen.paying || outcome.paying
            seen.refunded = seen.refunded || outcome.refunded
        }
        // The histories reach every outcome.
        #expect(seen.trialStarted && seen.converted && seen.paying && seen.refunded)
    }
}
