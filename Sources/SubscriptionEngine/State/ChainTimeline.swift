import Foundation

/// One auto-renewable chain's state over all time, as the engine sees it from every fact known
/// now: the instants where the state can change, each with the state from then until the next.
///
/// ``SubscriptionState`` depends on the instant only through comparisons with the facts' own
/// dates (a period's purchase, expiry and revocation, the end of billing retry, a renewal fact's
/// signing and grace end), each of which changes the answer exactly at that date. Evaluating at
/// every such date therefore gives the state at every instant, with far fewer evaluations than
/// instants asked about (a year of days, say).
public struct ChainTimeline: Sendable, Hashable {
    public var originalTransactionId: String
    /// Oldest first; `state` holds from `from` until the next segment's `from` (the last for ever).
    /// Before the first segment the chain had not begun.
    public var segments: [Segment]

    public struct Segment: Sendable, Hashable {
        public var from: Date
        public var state: SubscriptionState
    }

    /// The state at `instant`, or `nil` before the chain began.
    public func state(at instant: Date) -> SubscriptionState? {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].from <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : segments[low - 1].state
    }
}

extension PurchaseHistory {
    /// The timeline of every auto-renewable chain of the history (the same chains, periods and
    /// renewal facts ``CustomerState`` evaluates), by original transaction id.
    public func chainTimelines(catalog: Catalog = .empty, configuration: EngineConfiguration = EngineConfiguration()) -> [String: ChainTimeline] {
        var chains: [String: [PurchaseFact]] = [:]
        for purchase in effectivePurchases where RevenueLedger.type(of: purchase, catalog) == .autoRenewable {
            chains[purchase.originalTransactionId, default: []].append(purchase)
        }
        var result: [String: ChainTimeline] = [:]
        for (id, unsorted) in chains {
            let periods = unsorted.sorted(by: PurchaseFact.chronologically)
            let renewal = renewals[id]
            let timeline = renewalTimeline[id] ?? []
            var instants = Set<Date>()
            for period in periods {
                instants.insert(period.purchaseDate)
                if let expires = period.expiresDate {
                    instants.insert(expires)
                    instants.insert(expires.addingTimeInterval(configuration.billingRetryLimit))
                }
                if let revocation = period.revocation { instants.insert(revocation.date) }
            }
            for fact in timeline + (renewal.map { [$0] } ?? []) {
                if let signed = fact.signedDate { instants.insert(signed) }
                if let grace = fact.gracePeriodExpiresDate { instants.insert(grace) }
            }
            var segments: [ChainTimeline.Segment] = []
            for instant in instants.sorted() {
                guard
                    let state = SubscriptionState.evaluate(
                        chronological: periods, renewal: renewal, timeline: timeline, catalog: catalog, at: instant, configuration: configuration)
                else { continue }
                if segments.last?.state != state { segments.append(ChainTimeline.Segment(from: instant, state: state)) }
            }
            result[id] = ChainTimeline(originalTransactionId: id, segments: segments)
        }
        return result
    }
}
