import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// Each revenue definition pinned on small histories (see `RevenueFigures`' table).
@Suite("Analytics: revenue, proceeds and refunds")
struct RevenueTests {
    static let t0 = SnapshotTests.t0
    static let day = SnapshotTests.day
    static let january = (t0, t0 + 31 * day)
    static let february = (t0 + 31 * day, t0 + 59 * day)

    static func figures(
        _ customers: [[PurchaseFact]], _ interval: (Date, Date), configuration: AnalyticsConfiguration = AnalyticsConfiguration()
    ) -> RevenueFigures {
        let histories = customers.map { facts -> PurchaseHistory in
            var history = PurchaseHistory()
            history.add(facts)
            return history
        }
        return SubscriptionAnalytics(catalog: SnapshotTests.catalog, configuration: configuration)
            .revenue(of: histories, from: interval.0, to: interval.1, now: interval.1)
    }

    @Test("a sale counts in full when it was bought; proceeds are after Apple's 30 %")
    func sale() {
        let figures = Self.figures([[SnapshotTests.period("1", start: Self.t0 + Self.day)]], Self.january)
        #expect(figures.sales == 1)
        #expect(figures.revenue.value == Decimal(string: "9.99"))
        #expect(figures.proceeds.value == Decimal(string: "6.99"))  // 6.993
        #expect(figures.netRevenue.value == Decimal(string: "9.99"))
        #expect(Self.figures([[SnapshotTests.period("1", start: Self.t0 + Self.day)]], Self.february).sales == 0)
    }

    @Test("a refund in a later month is dated by the refund and never rewrites the month of the sale")
    func laterRefund() {
        let refunded = [SnapshotTests.period("1", start: Self.t0 + Self.day, revoked: Self.t0 + 40 * Self.day)]
        let january = Self.figures([refunded], Self.january)
        #expect(january.revenue.value == Decimal(string: "9.99") && january.refunds == 0)
        let february = Self.figures([refunded], Self.february)
        #expect(february.revenue.value == 0 && february.refunds == 1)
        #expect(february.refundAmount.value == Decimal(string: "9.99"))
        #expect(february.netRevenue.value == Decimal(string: "-9.99"))
    }

    @Test("an upgrade's prorated credit is not a refund: both transactions count in full")
    func upgrade() {
        var monthly = SnapshotTests.period("1", start: Self.t0 + Self.day)
        monthly.isUpgraded = true
        monthly.revocation = Revocation(date: Self.t0 + 10 * Self.day, kind: .upgrade)
        var yearly = SnapshotTests.period("2", product: "pro.yearly", start: Self.t0 + 10 * Self.day, days: 365, price: 99_990)
        yearly.originalTransactionId = "1"
        let figures = Self.figures([[monthly, yearly]], Self.january)
        #expect(figures.sales == 2 && figures.refunds == 0)
        #expect(figures.revenue.value == Decimal(string: "109.98"))
    }

    @Test("the Small Business Program and a year of paid service take 15 %")
    func reducedCommission() {
        let small = AnalyticsConfiguration(smallBusiness: true)
        #expect(
            Self.figures([[SnapshotTests.period("1", start: Self.t0 + Self.day)]], Self.january, configuration: small).proceeds.value
                == Decimal(string: "8.49"))  // 8.4915
        // Thirteen monthly periods back to back: the thirteenth is past a year of paid service.
        let periods = (0..<13).map { month in
            var period = SnapshotTests.period("m\(month)", start: Self.t0 + Double(month) * 30.5 * Self.day, days: 30.5)
            period.originalTransactionId = "m0"
            return period
        }
        let thirteenth = (Self.t0 + 12 * 30.5 * Self.day, Self.t0 + 13 * 30.5 * Self.day)
        #expect(Self.figures([periods], thirteenth).proceeds.value == Decimal(string: "8.49"))
    }

    @Test(
        "a monthly plan with a 12-month commitment: each payment is revenue on its date; the 13th payment (a new commitment) is past a year of paid service and takes 15 %"
    )
    func commitmentPayments() {
        let payments = (0..<13).map { month in
            var payment = SnapshotTests.period(
                "c\(month)", product: "pro.yearly", start: Self.t0 + Double(month) * 30.5 * Self.day, days: 30.5, price: 7_490)
            payment.originalTransactionId = "c0"
            payment.billingPlanType = "MONTHLY"
            payment.commitment = Commitment(
                billingPeriodNumber: month % 12 + 1, totalBillingPeriods: 12, price: Money(milliunits: 89_880, currency: "USD"))
            return payment
        }
        let first = (Self.t0, Self.t0 + 30.5 * Self.day)
        #expect(Self.figures([payments], first).revenue.value == Decimal(string: "7.49"))
        #expect(Self.figures([payments], first).proceeds.value == Decimal(string: "5.24"))  // 5.243
        let thirteenth = (Self.t0 + 12 * 30.5 * Self.day, Self.t0 + 13 * 30.5 * Self.day)
        #expect(Self.figures([payments], thirteenth).proceeds.value == Decimal(string: "6.37"))  // 6.3665
        let year = (Self.t0, Self.t0 + 12 * 30.5 * Self.day)
        #expect(Self.figures([payments], year).revenue.value == Decimal(string: "89.88") && Self.figures([payments], year).sales == 12)
    }

    @Test("a manual grant has no price: no sale, no revenue, no proceeds, not active and nothing in MRR, whatever the catalog charges")
    func grantsAreFree() {
        let catalog = Catalog(products: [
            CatalogProduct(
                productId: "premium.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "premium", price: 79.99, currency: "USD",
                subscriptionPeriod: ISO8601Duration("P1Y")),
            CatalogProduct(productId: "premium.lifetime", type: .nonConsumable, price: 199.99, currency: "USD"),
        ])
        var history = PurchaseHistory()
        // A paying subscriber, and two grants on January 5: a year of premium.yearly and a lifetime.
        history.add(
            PurchaseFact(
                transactionId: "paid", productId: "premium.yearly", purchaseDate: Self.t0 + 4 * Self.day,
                expiresDate: Self.t0 + 369 * Self.day, price: Money(milliunits: 79_990, currency: "USD")))
        history.add(
            PurchaseFact.manualGrant(
                id: "grant:year", productId: "premium.yearly", startDate: Self.t0 + 4 * Self.day, endDate: Self.t0 + 369 * Self.day))
        history.add(PurchaseFact.manualGrant(id: "grant:ever", productId: "premium.lifetime", startDate: Self.t0 + 4 * Self.day, endDate: nil))
        history.revoke(transactionId: "grant:ever", at: Self.t0 + 6 * Self.day)
        let analytics = SubscriptionAnalytics(catalog: catalog)
        let day = analytics.revenue(of: [history], from: Self.t0 + 4 * Self.day, to: Self.t0 + 5 * Self.day, now: Self.t0 + 40 * Self.day)
        // By the definitions: the one paid sale, $79.99, 70 % of it as proceeds.
        #expect(day.sales == 1)
        #expect(day.revenue.value == Decimal(string: "79.99"))
        #expect(day.proceeds.value == Decimal(string: "55.99"))  // 55.993
        let january = analytics.revenue(of: [history], from: Self.january.0, to: Self.january.1, now: Self.t0 + 40 * Self.day)
        #expect(january.refunds == 0 && january.refundAmount.value == 0)
        let snapshot = analytics.snapshot(of: history, at: Self.t0 + 10 * Self.day)
        #expect(snapshot.activeSubscriptions == 1)
        #expect(snapshot.mrr == Decimal(string: "6.67"))  // 79.99 ÷ 12 = 6.6658…
    }

    @Test("family-shared copies are never sales; a currency without a rate is listed apart")
    func sharedAndUnconverted() {
        let shared = Self.figures([[SnapshotTests.period("1", start: Self.t0 + Self.day, ownership: .familyShared)]], Self.january)
        #expect(shared.sales == 0 && shared.revenue.value == 0)
        let pounds = Self.figures([[SnapshotTests.period("2", start: Self.t0 + Self.day, price: 8_990, currency: "GBP")]], Self.january)
        #expect(pounds.revenue.value == 0 && pounds.revenue.unconverted == ["GBP": Decimal(string: "8.99")!])
    }
}
