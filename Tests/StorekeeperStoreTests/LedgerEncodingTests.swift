import Foundation
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// Pins how each kind of ledger fact is stored and keyed. A failure here means a change would
/// alter rows already on disk or re-record facts under new keys after an upgrade: such a change
/// needs a migration (see `LedgerRekeying`) and these goldens updated in the same commit.
@Suite("Ledger encoding and keys (golden)")
struct LedgerEncodingTests {
    static let t0 = Date(millisecondsSince1970: 1_767_225_600_000)  // 2026-01-01T00:00:00Z

    static let signedPurchase = PurchaseFact(
        transactionId: "2000000000000002", originalTransactionId: "2000000000000001", productId: "pro.monthly",
        productType: .autoRenewable, subscriptionGroupIdentifier: "pro", purchaseDate: t0,
        originalPurchaseDate: t0.addingTimeInterval(-86_400), expiresDate: t0.addingTimeInterval(30 * 86_400), quantity: 1,
        offer: Offer(kind: .promotional, identifier: "spring"), ownership: .familyShared,
        revocation: Revocation(date: t0.addingTimeInterval(86_400), kind: .proratedRefund, percentage: 50, dueToAppIssue: true),
        isUpgraded: false, price: Money(milliunits: 9_990, currency: "EUR"), webOrderLineItemId: "2000000000000003",
        signedDate: Date(millisecondsSince1970: 1_767_315_600_123))
    static let receiptPurchase = PurchaseFact(
        transactionId: "1000000000000002", originalTransactionId: "1000000000000001", productId: "pro.monthly",
        productType: .autoRenewable, purchaseDate: t0, expiresDate: t0.addingTimeInterval(30 * 86_400), isUpgraded: true)
    static let signedRenewal = RenewalFact(
        originalTransactionId: "2000000000000001", productId: "pro.monthly", autoRenewProductId: "pro.yearly", willAutoRenew: true,
        expirationReason: .billingError, isInBillingRetry: true, gracePeriodExpiresDate: t0.addingTimeInterval(16 * 86_400),
        priceIncreaseConsent: .accepted, nextOffer: Offer(kind: .winBack, identifier: "back"), eligibleWinBackOfferIds: ["back"],
        renewalPrice: Money(milliunits: 99_990, currency: "EUR"), signedDate: t0.addingTimeInterval(1))
    static let receiptRenewal = RenewalFact(
        originalTransactionId: "1000000000000001", autoRenewProductId: "pro.monthly", willAutoRenew: false, expirationReason: .voluntary)
    static let grant = PurchaseFact.manualGrant(id: "grant:support-42", productId: "pro.lifetime", startDate: t0, endDate: nil)
    static let revocation = LedgerFact.ManualRevocation(
        transactionId: "2000000000000002", date: t0.addingTimeInterval(3_600), reason: "chargeback", originalTransactionId: "2000000000000001")

    static let golden: [(fact: LedgerFact, key: String, json: String)] = [
        (
            .purchase(signedPurchase), "purchase:2000000000000002:s1767315600123",
            #"{"purchase":{"_0":{"expiresDate":1769817600000,"isUpgraded":false,"offer":{"identifier":"spring","kind":"promotional"},"originalPurchaseDate":1767139200000,"originalTransactionId":"2000000000000001","ownership":"familyShared","price":{"currency":"EUR","milliunits":9990},"productId":"pro.monthly","productType":"autoRenewable","purchaseDate":1767225600000,"quantity":1,"revocation":{"date":1767312000000,"dueToAppIssue":true,"kind":"proratedRefund","percentage":50},"signedDate":1767315600123,"subscriptionGroupIdentifier":"pro","transactionId":"2000000000000002","webOrderLineItemId":"2000000000000003"}}}"#
        ),
        (
            .purchase(receiptPurchase), "purchase:1000000000000002:r1769817600000:-:1",
            #"{"purchase":{"_0":{"expiresDate":1769817600000,"isUpgraded":true,"originalTransactionId":"1000000000000001","ownership":"purchased","productId":"pro.monthly","productType":"autoRenewable","purchaseDate":1767225600000,"quantity":1,"transactionId":"1000000000000002"}}}"#
        ),
        (
            .renewal(signedRenewal), "renewal:2000000000000001:s1767225601000",
            #"{"renewal":{"_0":{"autoRenewProductId":"pro.yearly","eligibleWinBackOfferIds":["back"],"expirationReason":"billingError","gracePeriodExpiresDate":1768608000000,"isInBillingRetry":true,"nextOffer":{"identifier":"back","kind":"winBack"},"originalTransactionId":"2000000000000001","priceIncreaseConsent":"accepted","productId":"pro.monthly","renewalPrice":{"currency":"EUR","milliunits":99990},"signedDate":1767225601000,"willAutoRenew":true}}}"#
        ),
        (
            .renewal(receiptRenewal), "renewal:1000000000000001:rpro.monthly:0:-:-:voluntary:-",
            #"{"renewal":{"_0":{"autoRenewProductId":"pro.monthly","expirationReason":"voluntary","originalTransactionId":"1000000000000001","willAutoRenew":false}}}"#
        ),
        (
            .purchase(grant), "purchase:grant:support-42:r-:-:0",
            #"{"purchase":{"_0":{"isUpgraded":false,"originalTransactionId":"grant:support-42","ownership":"purchased","productId":"pro.lifetime","productType":"nonConsumable","purchaseDate":1767225600000,"quantity":1,"transactionId":"grant:support-42"}}}"#
        ),
        (
            .revocation(revocation), "revocation:2000000000000002:1767229200000",
            #"{"revocation":{"_0":{"date":1767229200000,"originalTransactionId":"2000000000000001","reason":"chargeback","transactionId":"2000000000000002"}}}"#
        ),
    ]

    @Test("each fact kind is stored as the same JSON and keyed by Apple's identities")
    func golden() throws {
        for (index, item) in Self.golden.enumerated() {
            #expect(LedgerEntry.key(for: item.fact) == item.key, "fact \(index)")
            let json = try StoreCoding.encode(item.fact)
            #expect(json == item.json, "fact \(index): \(json)")
            #expect((try? StoreCoding.decode(LedgerFact.self, from: item.json, column: "fact")) == item.fact, "fact \(index)")
        }
    }

    @Test("a key does not depend on fields Apple's identity leaves out (a new engine field keeps the key)")
    func keyIgnoresEncoding() {
        var renamed = Self.signedPurchase
        renamed.offer = nil
        renamed.price = nil
        #expect(LedgerEntry.key(for: .purchase(renamed)) == LedgerEntry.key(for: .purchase(Self.signedPurchase)))
        var later = Self.signedPurchase
        later.signedDate = Self.t0.addingTimeInterval(200_000)
        #expect(LedgerEntry.key(for: .purchase(later)) != LedgerEntry.key(for: .purchase(Self.signedPurchase)))
        var refunded = Self.receiptPurchase
        refunded.revocation = Revocation(date: Self.t0.addingTimeInterval(5), kind: .refund)
        #expect(LedgerEntry.key(for: .purchase(refunded)) != LedgerEntry.key(for: .purchase(Self.receiptPurchase)))
    }
}
