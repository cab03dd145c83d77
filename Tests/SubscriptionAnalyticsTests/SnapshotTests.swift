import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// Each snapshot definition pinned on small histories (see `Snapshot`'s table).
@Suite("Analytics: snapshot metrics")
struct SnapshotTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let day: TimeInterval = 86_400
    static let catalog = Catalog(products: [
        CatalogProduct(productId: "pro.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "pro"),
        CatalogProduct(productId: "pro.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "pro"),
        CatalogProduct(productId: "pro.weekly", type: .autoRenewable, subscriptionGroupIdentifier: "pro"),
        CatalogProduct(
            productId: "pro.quarterly", type: .autoRenewable, subscriptionGroupIdentifier: "pro", price: 24.99, currency: "USD",
            subscriptionPeriod: ISO8601Duration("P3M")),
    ])

    /// A chain of one period: `days` long from `start`, at `price` (milliunits) in `currency`.
    static func period(
        _ chain: String, product: String = "pro.monthly", start: Date = t0, days: Double = 30, price: Int64? = 9_990,
        currency: String = "USD", offer: OfferKind? = nil, ownership: Ownership = .purchased, revoked: Date? = nil
    ) -> PurchaseFact {
        PurchaseFact(
            transactionId: chain, originalTransactionId: chain, productId: product, productType: .autoRenewable,
            subscriptionGroupIdentifier: "pro", purchaseDate: start, expiresDate: start + days * day,
            offer: offer.map { Offer(kind: $0) }, ownership: ownership,
            revocation: revoked.map { Revocation(date: $0, kind: .refund) }, price: price.map { Money(milliunits: $0, currency: currency) },
            signedDate: start)
    }

    static func snapshot(
        _ facts: [PurchaseFact], renewals: [RenewalFact] = [], at instant: Date = t0 + 10 * day,
        configuration: AnalyticsConfiguration = AnalyticsConfiguration()
    ) -> Snapshot {
        var history = PurchaseHistory()
        history.add(facts)
        history.add(renewals)
        return SubscriptionAnalytics(catalog: catalog, configuration: configuration).snapshot(of: history, at: instant)
    }

    @Test("a paid monthly period is one active subscription at its price")
    func monthly() {
        let snapshot = Self.snapshot([Self.period("1")])
        #expect(snapshot.activeSubscriptions == 1)
        #expect(snapshot.mrr == Decimal(string: "9.99"))
        #expect(snapshot.currency == "USD")
    }

    @Test("a monthly payment of a 12-month commitment on a one-year product counts its monthly charge as MRR, not a twelfth of it")
    func commitmentMRR() {
        var payment = Self.period("c1", product: "pro.yearly", days: 30, price: 9_990)
        payment.billingPlanType = "MONTHLY"
        payment.commitment = Commitment(billingPeriodNumber: 1, totalBillingPeriods: 12, price: Money(milliunits: 119_880, currency: "USD"))
        #expect(Self.snapshot([payment]).mrr == Decimal(string: "9.99"))
        // The same product billed up front: a twelfth of the year's price.
        #expect(Self.snapshot([Self.period("u1", product: "pro.yearly", days: 365, price: 99_990)]).mrr == Decimal(string: "8.33"))
    }

    @Test("prices are normalized to a month by the period and rounded once, at the end")
    func normalization() {
        let yearly = [
            Self.period("1", product: "pro.yearly", days: 365, price: 99_990), Self.period("2", product: "pro.yearly", days: 365, price: 99_990),
        ]
        // 2 × 99.99 / 12 = 16.665 → 16.67 (rounding each first would give 16.66).
        #expect(Self.snapshot(yearly).mrr == Decimal(string: "16.67"))
        // 2.99 × 52 / 12 = 12.9566… → 12.96
        #expect(
            Self.snapshot([Self.period("3", product: "pro.weekly", days: 7, price: 2_990)], at: Self.t0 + 3 * Self.day).mrr
                == Decimal(string: "12.96"))
        // The catalog's P3M and its price where the fact has none: 24.99 / 3 = 8.33
        #expect(Self.snapshot([Self.period("4", product: "pro.quarterly", days: 91, price: nil)]).mrr == Decimal(string: "8.33"))
        // An unusual length: 10 days at 5.00 → 5 × (365/12) / 10 = 15.208… → 15.21
        #expect(Self.snapshot([Self.period("5", days: 10, price: 5_000)], at: Self.t0 + Self.day).mrr == Decimal(string: "15.21"))
    }

    @Test("a free trial is a trial, not a subscription, and adds nothing to MRR")
    func trial() {
        let snapshot = Self.snapshot([Self.period("1", days: 7, price: 0, offer: .freeTrial)], at: Self.t0 + 3 * Self.day)
        #expect(snapshot.activeTrials == 1)
        #expect(snapshot.activeSubscriptions == 0)
        #expect(snapshot.mrr == 0)
    }

    @Test("grace keeps a subscription active and counted in MRR; billing retry does not")
    func graceAndRetry() {
        let lapsed = Self.t0 + 31 * Self.day
        let grace = Self.snapshot(
            [Self.period("1")],
            renewals: [
                RenewalFact(
                    originalTransactionId: "1", autoRenewProductId: "pro.monthly", willAutoRenew: true,
                    isInBillingRetry: true, gracePeriodExpiresDate: Self.t0 + 46 * Self.day, signedDate: lapsed)
            ],
            at: lapsed + Self.day)
        #expect(grace.activeSubscriptions == 1 && grace.gracePeriod == 1 && grace.billingRetry == 0)
        #expect(grace.mrr == Decimal(string: "9.99"))
        let retry = Self.snapshot(
            [Self.period("1")],
            renewals: [
                RenewalFact(
                    originalTransactionId: "1", autoRenewProductId: "pro.monthly", willAutoRenew: true,
                    isInBillingRetry: true, signedDate: lapsed)
            ],
            at: lapsed + Self.day)
        #expect(retry.activeSubscriptions == 0 && retry.billingRetry == 1 && retry.mrr == 0)
    }

    @Test("auto-renew off stays active until expiry; expired and refunded periods are not active")
    func endings() {
        let off = [RenewalFact(originalTransactionId: "1", autoRenewProductId: "pro.monthly", willAutoRenew: false, signedDate: Self.t0 + Self.day)]
        #expect(Self.snapshot([Self.period("1")], renewals: off, at: Self.t0 + 29 * Self.day).activeSubscriptions == 1)
        #expect(Self.snapshot([Self.period("1")], renewals: off, at: Self.t0 + 31 * Self.day).activeSubscriptions == 0)
        #expect(Self.snapshot([Self.period("2", revoked: Self.t0 + 5 * Self.day)]).activeSubscriptions == 0)
    }

    @Test("family-shared copies are counted apart and never in paid figures")
    func familyShared() {
        let snapshot = Self.snapshot([Self.period("1"), Self.period("2", ownership: .familyShared)])
        #expect(snapshot.activeSubscriptions == 1 && snapshot.familyShared == 1)
        #expect(snapshot.mrr == Decimal(string: "9.99"))
    }

    @Test("other currencies convert with the app's rates; one without a rate is listed apart, never dropped")
    func currencies() {
        let configuration = AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.08")!])
        let snapshot = Self.snapshot(
            [Self.period("1"), Self.period("2", currency: "EUR"), Self.period("3", price: 8_990, currency: "GBP")], configuration: configuration)
        // 9.99 + 9.99 × 1.08 = 20.7792 → 20.78
        #expect(snapshot.mrr == Decimal(string: "20.78"))
        #expect(snapshot.unconverted == ["GBP": Decimal(string: "8.99")!])
        #expect(snapshot.activeSubscriptions == 3)
    }

    @Test("a subscription no source or catalog prices is counted and reported as unpriced")
    func unpriced() {
        let snapshot = Self.snapshot([Self.period("1", price: nil)])
        #expect(snapshot.activeSubscriptions == 1 && snapshot.unpriced == 1 && snapshot.mrr == 0)
    }

    @Test("the configuration's defaults and its checks")
    func configuration() throws {
        let decoded = try JSONDecoder().decode(AnalyticsConfiguration.self, from: Data("{}".utf8))
        #expect(decoded == AnalyticsConfiguration())
        #expect(decoded.problem == nil)
        #expect(AnalyticsConfiguration(reportingCurrency: "usd").problem != nil)
        #expect(AnalyticsConfiguration(exchangeRates: ["EUR": 0]).problem != nil)
        #expect(AnalyticsConfiguration(timeZone: "Mars/Olympus").problem != nil)
        #expect(AnalyticsConfiguration(timeZone: "Europe/Berlin").problem == nil)
    }
}

@Suite("Analytics: environments")
struct EnvironmentTests {
    @Test("production only unless the sandbox is asked for; facts that do not say count as production")
    func sandboxApart() {
        var sandbox = SnapshotTests.period("s")
        sandbox.environment = "Sandbox"
        var production = SnapshotTests.period("p")
        production.environment = "Production"
        var history = PurchaseHistory()
        history.add([sandbox, production, SnapshotTests.period("unsaid")])
        let at = SnapshotTests.t0 + 10 * SnapshotTests.day
        #expect(SubscriptionAnalytics(catalog: SnapshotTests.catalog).snapshot(of: history, at: at).activeSubscriptions == 2)
        let asked = SubscriptionAnalytics(catalog: SnapshotTests.catalog, environment: "Sandbox").snapshot(of: history, at: at)
        #expect(asked.activeSubscriptions == 1 && asked.mrr == Decimal(string: "9.99"))
    }
}
