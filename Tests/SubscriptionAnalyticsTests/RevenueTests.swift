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
            .revenue(of: histories, from: interval.0, to: interval.1)
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

    @Test("family-shared copies are never sales; a currency without a rate is listed apart")
    func sharedAndUnconverted() {
        let shared = Self.figures([[SnapshotTests.period("1", start: Self.t0 + Self.day, ownership: .familyShared)]], Self.january)
        #expect(shared.sales == 0 && shared.revenue.value == 0)
        let pounds = Self.figures([[SnapshotTests.period("2", start: Self.t0 + Self.day, price: 8_990, currency: "GBP")]], Self.january)
        #expect(pounds.revenue.value == 0 && pounds.revenue.unconverted == ["GBP": Decimal(string: "8.99")!])
    }
}
