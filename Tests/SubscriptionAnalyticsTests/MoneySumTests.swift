import Foundation
import SubscriptionEngine
import Testing

@testable import SubscriptionAnalytics

/// Sums of money divide each denominator once; a denominator of only 2s and 5s is multiplied by
/// its exact reciprocal instead of divided: the same values, rounded the same way.
@Suite("Analytics: exact money sums")
struct MoneySumTests {
    @Test("reciprocals exist exactly for denominators of 2s and 5s, and only for them")
    func reciprocals() {
        #expect(MoneySum.reciprocal(of: 10) == Decimal(string: "0.1"))
        #expect(MoneySum.reciprocal(of: 20) == Decimal(string: "0.05"))
        #expect(MoneySum.reciprocal(of: 10_000) == Decimal(string: "0.0001"))
        #expect(MoneySum.reciprocal(of: 1_024) == Decimal(string: "0.0009765625"))
        #expect(MoneySum.reciprocal(of: 3) == nil)
        #expect(MoneySum.reciprocal(of: 12) == nil)
        #expect(MoneySum.reciprocal(of: 0) == nil)
        #expect(MoneySum.reciprocal(of: Int64(1) << 62) == nil)
    }

    @Test("totals by reciprocal equal the division's, to the cent, for random amounts, factors and rates")
    func totalsMatchDivision() {
        var state: UInt64 = 42
        func next(_ bound: Int64) -> Int64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64((state >> 33) % UInt64(bound))
        }
        let configuration = AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.0825")!, "JPY": Decimal(string: "0.0067")!])
        for _ in 0..<2_000 {
            var sum = MoneySum()
            // The division, as before: per currency and denominator, the numerators summed.
            var parts: [String: [Int64: Decimal]] = [:]
            for _ in 0..<(1 + next(6)) {
                let currency = ["USD", "EUR", "JPY", "XTS"][Int(next(4))]
                let money = Money(milliunits: next(2_000_000) - 500_000, currency: currency)
                let factor = [(Int64(1), Int64(1)), (7_000, 10_000), (8_500, 10_000), (1, 12), (5, 8), (next(99_999) + 1, 100_000)][Int(next(6))]
                sum.add(money, times: factor)
                let (numerator, denominator) = MoneySum.lowestTerms(factor)
                parts[currency, default: [:]][denominator, default: 0] += Decimal(money.milliunits) * Decimal(numerator)
            }
            let expected = parts.mapValues { $0.reduce(Decimal(0)) { $0 + $1.value / Decimal($1.key) } }
            let milliunits = sum.milliunits
            for (currency, value) in expected {
                // Repeating decimals (1/12) summed in another order may differ in the 38th digit.
                #expect(MoneySum.cents(milliunits[currency] ?? 0) == MoneySum.cents(value), "\(currency)")
            }
            var reference: Decimal = 0
            for (currency, value) in expected where currency != "XTS" {
                reference += currency == "USD" ? value : value * configuration.exchangeRates[currency]!
            }
            #expect(sum.total(in: configuration).amount == MoneySum.cents(reference))
        }
    }

    @Test("a thousandth by the exponent rounds as the product with 0.001 does: signs, halves, fractions and 38 digits")
    func centsByExponent() {
        var state: UInt64 = 7
        func next() -> Int64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64(bitPattern: state >> 1) >> Int64(state % 60)
        }
        let thousandth = Decimal(sign: .plus, exponent: -3, significand: 1)
        var values: [Decimal] = [0, 5, -5, 15, -15, 25, 4_995, -4_995, Decimal(string: "12345.678")!, Decimal(string: "-0.5")!]
        values.append(Decimal(string: "99999999999999999999999999999999999999")!)
        values.append(Decimal(string: "-1234567890123456789012345678901234.5678")!)
        for _ in 0..<2_000 {
            let value = Decimal(next()) / Decimal(max(1, next() % 1_000))
            values.append(value)
        }
        for milliunits in values {
            var units = milliunits * thousandth
            var reference = Decimal()
            NSDecimalRound(&reference, &units, 2, .plain)
            #expect(MoneySum.cents(milliunits) == reference, "\(milliunits)")
        }
    }
}
