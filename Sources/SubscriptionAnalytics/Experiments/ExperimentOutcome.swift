import Foundation
import SubscriptionEngine

/// What one exposed customer did after exposure, read from the figures of the customer's chains
/// (their purchaser-owned purchases and dated sales), not from the ledger.
///
/// | figure | what counts |
/// |---|---|
/// | `trialStarted` | a free trial purchased at or after exposure |
/// | `converted` | a paid purchase after exposure in the chain of the first such trial |
/// | `paying` | a paid purchase at or after exposure |
/// | `refunded` | a purchase made at or after exposure that Apple refunded |
/// | `revenue`, `proceeds` | per window of days, the sales dated in `[exposure, exposure + days)` and at or before now, in the reporting currency |
public struct ExperimentOutcome: Sendable, Hashable {
    public var trialStarted = false
    public var converted = false
    public var paying = false
    public var refunded = false
    public var revenue: [Int: Decimal] = [:]
    public var proceeds: [Int: Decimal] = [:]

    public init() {}

    /// The windows an experiment's results show: revenue and proceeds within 7, 14 and 30 days
    /// of exposure.
    public static let windows = [7, 14, 30]

    /// The outcome of a customer who did nothing after exposure.
    public static let nothing: ExperimentOutcome = {
        var outcome = ExperimentOutcome()
        for days in windows { (outcome.revenue[days], outcome.proceeds[days]) = (0, 0) }
        return outcome
    }()
}

extension SubscriptionAnalytics {
    /// The outcome of a customer exposed at `exposure` whose chains have the figures `chains`
    /// (computed in this analytics' environment), known at `now`, for each window of `days`.
    public func experimentOutcome(of chains: [ChainFigures], exposure: Date, now: Date, days windows: [Int]) -> ExperimentOutcome {
        var outcome = ExperimentOutcome()
        let after = chains.indices.flatMap { chain in chains[chain].purchases.filter { $0.at >= exposure }.map { (chain, $0) } }
        outcome.paying = after.contains { $0.1.paid }
        outcome.refunded = after.contains { $0.1.refunded }
        if let (trialChain, _) = after.filter({ $0.1.trial }).min(by: { $0.1.at < $1.1.at }) {
            outcome.trialStarted = true
            outcome.converted = after.contains { $0.0 == trialChain && $0.1.paid }
        }
        let sales = chains.flatMap { $0.items.filter { $0.group.isEmpty && $0.kind == .sale && $0.at >= exposure && $0.at <= now } }
        for days in windows {
            let end = min(now, exposure.addingTimeInterval(Double(days) * 86_400))
            var revenue = MoneySum()
            var proceeds = MoneySum()
            var counted = false
            for sale in sales where sale.at < end {
                counted = true
                if let money = sale.money { revenue.add(money) }
                if let part = sale.proceeds { proceeds.add(part) }
            }
            // Only the two totals shown are converted, and a window without a sale (most
            // exposed customers' windows) is zero without converting anything.
            outcome.revenue[days] = counted ? revenue.total(in: configuration).amount : 0
            outcome.proceeds[days] = counted ? proceeds.total(in: configuration).amount : 0
        }
        return outcome
    }
}
