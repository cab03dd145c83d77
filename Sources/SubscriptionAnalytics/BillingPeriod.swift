import Foundation
import SubscriptionEngine

/// An auto-renewable product's billing period, as far as monthly normalization needs it.
public enum BillingPeriod: Sendable, Hashable {
    case week
    /// 1, 2, 3 or 6 months.
    case months(Int)
    case year
    /// Any other length, in seconds.
    case seconds(Int64)

    /// The fraction that turns one period's price into a monthly amount, kept as integers so
    /// sums stay exact: P1W × 52/12, P1M × 1, P2M ÷ 2, P3M ÷ 3, P6M ÷ 6, P1Y ÷ 12; any other
    /// period × (365/12) ÷ its length in days.
    public var monthlyFactor: (numerator: Int64, denominator: Int64) {
        switch self {
        case .week: (52, 12)
        case .months(let count): (1, Int64(count))
        case .year: (1, 12)
        case .seconds(let seconds): seconds > 0 ? (365 * 86_400, 12 * seconds) : (0, 1)
        }
    }

    /// The catalog's `subscriptionPeriod`.
    public init(_ duration: ISO8601Duration) {
        let clock = duration.hours * 3_600 + duration.minutes * 60 + duration.seconds
        switch (duration.years, duration.months, duration.weeks, duration.days, clock) {
        case (0, 0, 1, 0, 0): self = .week
        case (0, let months, 0, 0, 0) where [1, 2, 3, 6].contains(months): self = .months(months)
        case (1, 0, 0, 0, 0): self = .year
        default:
            let days = Int64(duration.years * 365 + duration.weeks * 7 + duration.days)
            self = .seconds(days * 86_400 + Int64(duration.months) * 2_628_000 + Int64(clock))
        }
    }

    /// The period a transaction's purchase and expiry dates span (used where the catalog does
    /// not say): 7 days a week, 28–31 a month, 59–62 two, 89–92 three, 181–184 six, 365–366 a
    /// year, otherwise its length in days.
    public init?(from start: Date, to end: Date?) {
        guard let end, end > start else { return nil }
        let days = Int((end.timeIntervalSince(start) / 86_400).rounded())
        switch days {
        case 7: self = .week
        case 28...31: self = .months(1)
        case 59...62: self = .months(2)
        case 89...92: self = .months(3)
        case 181...184: self = .months(6)
        case 365...366: self = .year
        default: self = .seconds(Int64(end.timeIntervalSince(start).rounded()))
        }
    }
}
