import Foundation
import SubscriptionEngine
import Testing

@testable import SubscriptionAnalytics

/// An experiment's per-customer outcome read from the figures of the customer's chains equals
/// the published definition applied to the customer's facts (docs/offerings.md, "Experiments").
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

    @Test(
        "a record converted is the definition's outcome while its last sale is before now; its money reads back from its text",
        arguments: [UInt64(3), 4])
    func recordEqualsDefinition(seed: UInt64) throws {
        let histories = SnapshotIndexTests.histories(seed: seed, chains: 90)
        var dice = SnapshotIndexTests.Dice(state: seed &+ 29)
        var start = 0
        var (settled, unsettled, withMoney) = (0, 0, 0)
        while start < histories.count {
            let count = 1 + dice.next(3)
            let chains = Array(histories[start..<min(start + count, histories.count)])
            start += count
            let exposure = ChainFiguresTests.t0 + Double(dice.next(200)) * ChainFiguresTests.day
            let figures = chains.map { Self.analytics.figures(ofChain: $0) }
            let record = ExperimentRecord(of: figures, exposure: exposure, days: ExperimentOutcome.windows)
            let text = record.moneyText
            #expect(ExperimentRecord.windows(fromMoneyText: text) == record.windows, "\(text)")
            withMoney += text.isEmpty ? 0 : 1
            for days in [3.0, 9, 20, 45] {
                let now = exposure + days * ChainFiguresTests.day + 0.37 * ChainFiguresTests.day
                let outcome = Self.analytics.experimentOutcome(of: figures, exposure: exposure, now: now, days: ExperimentOutcome.windows)
                if let last = record.lastSale, last >= now {
                    unsettled += 1
                    continue
                }
                settled += 1
                #expect(
                    Self.analytics.experimentOutcome(of: record, days: ExperimentOutcome.windows) == outcome,
                    "seed \(seed), chains from \(start - count), \(days) days after exposure")
                #expect(record.isEmpty == (outcome == .nothing))
            }
        }
        #expect(settled > 50 && unsettled > 10 && withMoney > 10, "\(settled) settled, \(unsettled) unsettled, \(withMoney) with money")
    }

    @Test("a record's money text keeps currencies with separators, and text that is not one is refused")
    func moneyText() {
        var record = ExperimentRecord()
        record.windows = [
            7: .init(revenue: [MoneyPart(currency: "A:B,C/D %E", amount: -12, denominator: 20)], proceeds: []),
            30: .init(revenue: [], proceeds: [MoneyPart(currency: "EUR", amount: 9_223_372_036_854_775_807, denominator: 1)]),
        ]
        #expect(record.moneyText == "7:A%3AB%2CC%2FD%20%25E:-12:20/ 30:/EUR:9223372036854775807:1")
        #expect(ExperimentRecord.windows(fromMoneyText: record.moneyText) == record.windows)
        #expect(ExperimentRecord.windows(fromMoneyText: "") == [:])
        for text in ["7", "7:", "x:/", "7:/ 7:/", "7:USD:1/", "7:USD:1:0/", "7:USD:1:2:3/", "7:/,", "7:/ "] {
            #expect(ExperimentRecord.windows(fromMoneyText: text) == nil, "\(text)")
        }
        // Amounts and days read as Int64 reads them: signs, 64 bits and not one more.
        for amount in ["-9223372036854775808", "+5", "007", "9223372036854775808", "-", "1_0", "٣", " 1", ""] {
            let text = "7:USD:\(amount):1/"
            let read = ExperimentRecord.windows(fromMoneyText: text)?[7]?.revenue.first?.amount
            #expect(read == Int64(amount), "\(text)")
        }
    }

    @Test("sales of one currency and denominator add up in one part; a sum past 64 bits stays in two parts with the same total")
    func mergedParts() {
        let big = Int64.max - 5
        let parts = ExperimentRecord.merged([
            MoneyPart(currency: "USD", amount: 990, denominator: 1), MoneyPart(currency: "EUR", amount: 7, denominator: 10),
            MoneyPart(currency: "USD", amount: 10, denominator: 1), MoneyPart(currency: "EUR", amount: big, denominator: 10),
        ])
        #expect(parts.map(\.currency) == ["EUR", "EUR", "USD"])
        #expect(parts.last == MoneyPart(currency: "USD", amount: 1_000, denominator: 1))
        var merged = MoneySum()
        for part in parts { merged.add(part) }
        var each = MoneySum()
        for part in [MoneyPart(currency: "EUR", amount: 7, denominator: 10), MoneyPart(currency: "EUR", amount: big, denominator: 10)] {
            each.add(part)
        }
        each.add(MoneyPart(currency: "USD", amount: 1_000, denominator: 1))
        #expect(merged == each)
    }
}
