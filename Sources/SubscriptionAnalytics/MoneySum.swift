import Foundation
import SubscriptionEngine

/// An exact sum of amounts in several currencies, reported in one: every amount is added in
/// milliunits of its own currency (a scaled amount, such as a yearly price per month, as an
/// integer numerator over its denominator, so nothing is rounded on the way), converted with the
/// configuration's rates only at the end, and rounded once, to the cent. A currency without a
/// rate is never dropped: it is reported apart, in its own units, under ``total(in:)``'s
/// `unconverted`.
public struct MoneySum: Sendable, Hashable {
    /// Per currency, per denominator: the sum of milliunits × numerator.
    private var parts: [String: [Int64: Decimal]] = [:]

    public init() {}

    /// Adds `money` × `numerator` / `denominator` (1/1 for a price as paid), the fraction in
    /// lowest terms (so the same fraction written two ways sums alike).
    public mutating func add(_ money: Money, times factor: (numerator: Int64, denominator: Int64) = (1, 1)) {
        guard factor.denominator > 0 else { return }
        let (numerator, denominator) = Self.lowestTerms(factor)
        parts[money.currency, default: [:]][denominator, default: 0] += Decimal(money.milliunits) * Decimal(numerator)
    }

    /// A fraction with a positive denominator in lowest terms.
    static func lowestTerms(_ factor: (numerator: Int64, denominator: Int64)) -> (numerator: Int64, denominator: Int64) {
        var a = factor.numerator.magnitude
        var b = factor.denominator.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        guard a > 1 else { return factor }
        return (factor.numerator / Int64(a), factor.denominator / Int64(a))
    }

    public mutating func add(_ other: MoneySum) {
        for (currency, sums) in other.parts {
            for (denominator, sum) in sums { parts[currency, default: [:]][denominator, default: 0] += sum }
        }
    }

    public mutating func subtract(_ other: MoneySum) {
        for (currency, sums) in other.parts {
            for (denominator, sum) in sums { parts[currency, default: [:]][denominator, default: 0] -= sum }
        }
    }

    /// The sum divided by `count` (exactly: the division joins the denominators).
    public func divided(by count: Int64) -> MoneySum {
        guard count > 0 else { return self }
        var result = MoneySum()
        for (currency, sums) in parts {
            for (denominator, sum) in sums { result.parts[currency, default: [:]][denominator * count, default: 0] += sum }
        }
        return result
    }

    /// Milliunits per currency: each denominator divided once (a denominator of only 2s and 5s,
    /// as a commission's 7/10 or 17/20, by multiplying with its reciprocal, which a decimal
    /// holds exactly: the same value, for a fraction of a division's cost).
    var milliunits: [String: Decimal] {
        parts.mapValues { sums in
            sums.reduce(Decimal(0)) { total, part in
                guard part.value != 0 else { return total }
                if part.key == 1 { return total + part.value }
                if let reciprocal = Self.reciprocal(of: part.key) { return total + part.value * reciprocal }
                return total + part.value / Decimal(part.key)
            }
        }
    }

    /// 1 / `denominator` when it is a finite decimal (the denominator has no prime factor but 2
    /// and 5) of at most 18 digits.
    static func reciprocal(of denominator: Int64) -> Decimal? {
        guard denominator > 0 else { return nil }
        var (rest, twos, fives) = (denominator, 0, 0)
        while rest % 2 == 0 { (rest, twos) = (rest / 2, twos + 1) }
        while rest % 5 == 0 { (rest, fives) = (rest / 5, fives + 1) }
        let digits = max(twos, fives)
        guard rest == 1, digits <= 18 else { return nil }
        var power: Int64 = 1
        for _ in 0..<digits { power *= 10 }
        return Decimal(sign: .plus, exponent: -digits, significand: Decimal(power / denominator))
    }

    /// The total in the reporting currency, rounded once to the cent (half away from zero),
    /// and the currencies that have no rate and a sum other than zero, each in its own units
    /// rounded to the cent.
    public func total(in configuration: AnalyticsConfiguration) -> (amount: Decimal, unconverted: [String: Decimal]) {
        var converted: Decimal = 0
        var unconverted: [String: Decimal] = [:]
        for (currency, amount) in milliunits {
            if currency == configuration.reportingCurrency {
                converted += amount
            } else if let rate = configuration.exchangeRates[currency] {
                converted += amount * rate
            } else if amount != 0 {
                unconverted[currency] = Self.cents(amount)
            }
        }
        return (Self.cents(converted), unconverted)
    }

    /// Milliunits as units rounded to the cent, half away from zero.
    static func cents(_ milliunits: Decimal) -> Decimal {
        // A thousandth by moving the exponent (exact, as the product with 0.001 is), not by a
        // multiplication: every figure shown rounds here.
        var units = Decimal(sign: .plus, exponent: -3, significand: milliunits)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &units, 2, .plain)  // .plain: half away from zero
        return rounded
    }
}
