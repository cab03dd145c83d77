import Foundation
import SubscriptionEngine
import SubscriptionReport
import Testing

@Suite("Money")
struct MoneyTests {
    private func monthly(_ count: Int, startDay: Double = 0, original: String = "t0", prefix: String = "t") -> [PurchaseFact] {
        (0..<count).map { index in
            PurchaseFact(
                transactionId: "\(prefix)\(index)", originalTransactionId: original, productId: "pro.monthly",
                productType: .autoRenewable, subscriptionGroupIdentifier: "g",
                purchaseDate: ScenarioHistory.day(startDay + Double(index) * 30),
                expiresDate: ScenarioHistory.day(startDay + Double(index + 1) * 30),
                price: Money(milliunits: 10_000, currency: "USD")
            )
        }
    }

    @Test("commission drops from 30 % to 15 % after a year of paid service")
    func reducedRateAfterOneYear() {
        let ledger = RevenueLedger(history: PurchaseHistory(purchases: monthly(14)), catalog: .empty, at: ScenarioHistory.day(1_000))
        let rates = ledger.transactions.map(\.commissionRate)
        #expect(rates.prefix(13).allSatisfy { $0 == 3_000 })
        #expect(rates.last == 1_500)
        #expect(ledger.transactions.first?.proceeds == Money(milliunits: 7_000, currency: "USD"))
        #expect(ledger.transactions.last?.proceeds == Money(milliunits: 8_500, currency: "USD"))
    }

    @Test("a lapse over 60 days restarts the count; a shorter one does not")
    func serviceGap() {
        let long = PurchaseHistory(purchases: monthly(10) + monthly(5, startDay: 300 + 61, original: "u0", prefix: "u"))
        let longRates = RevenueLedger(history: long, catalog: .empty, at: ScenarioHistory.day(2_000)).transactions.map(\.commissionRate)
        #expect(longRates.allSatisfy { $0 == 3_000 })
        let short = PurchaseHistory(purchases: monthly(10) + monthly(5, startDay: 300 + 59, original: "u0", prefix: "u"))
        let shortRates = RevenueLedger(history: short, catalog: .empty, at: ScenarioHistory.day(2_000)).transactions.map(\.commissionRate)
        #expect(shortRates.last == 1_500)
    }

    @Test("Small Business Program members pay 15 % from the start")
    func smallBusiness() {
        let ledger = RevenueLedger(
            history: PurchaseHistory(purchases: monthly(2)), catalog: .empty, at: ScenarioHistory.day(100),
            policy: CommissionPolicy(smallBusinessProgram: true))
        #expect(ledger.transactions.allSatisfy { $0.commissionRate == 1_500 })
        #expect(ledger.totals.first?.proceeds == Money(milliunits: 17_000, currency: "USD"))
    }

    @Test("refunds: full, prorated, and the unused part of an upgraded period")
    func refunds() {
        var purchases = monthly(3)
        purchases[0].revocation = Revocation(date: ScenarioHistory.day(10), kind: .refund)
        purchases[1].revocation = Revocation(date: ScenarioHistory.day(40), kind: .proratedRefund, percentage: 25_000)
        purchases[2].isUpgraded = true
        purchases[2].revocation = Revocation(date: ScenarioHistory.day(75), kind: .upgrade)
        let ledger = RevenueLedger(history: PurchaseHistory(purchases: purchases), catalog: .empty, at: ScenarioHistory.day(100))
        #expect(ledger.transactions.map(\.refunded?.milliunits) == [10_000, 2_500, 5_000])
        #expect(ledger.transactions.map(\.proceeds?.milliunits) == [0, 5_250, 3_500])
        #expect(
            ledger.totals == [
                RevenueTotal(
                    currency: "USD", gross: Money(milliunits: 30_000, currency: "USD"),
                    refunded: Money(milliunits: 17_500, currency: "USD"), proceeds: Money(milliunits: 8_750, currency: "USD")
                )
            ])
    }

    @Test("legacy transactions take the catalog price; free trials cost nothing")
    func catalogPrices() throws {
        let history = try StatusInput(
            json: ScenarioHistory(periods: [
                {
                    var p = ScenarioHistory.sub("t1", "t1", "pro.monthly", 0, 7)
                    p.offer = .freeTrial
                    return p
                }(),
                ScenarioHistory.sub("t2", "t1", "pro.monthly", 7, 37),
            ]).verifyReceiptJSON
        ).history
        let ledger = RevenueLedger(history: history, catalog: scenarioCatalog, at: ScenarioHistory.day(40))
        #expect(ledger.transactions.map(\.price) == [Money(milliunits: 0, currency: "USD"), Money(milliunits: 9_990, currency: "USD")])
    }

    @Test("StoreKit 2 prices are milliunits")
    func storeKit2Prices() throws {
        let history = try StatusInput(json: ScenarioHistory(periods: [ScenarioHistory.sub("t1", "t1", "pro.monthly", 0, 30)]).storeKit2JSON).history
        #expect(history.purchases["t1"]?.price == Money(milliunits: 9_990, currency: "USD"))
    }
}
