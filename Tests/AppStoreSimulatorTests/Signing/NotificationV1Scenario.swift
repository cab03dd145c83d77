import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

/// A small simulated App Store built by hand for the V1 notification tests: one account with a
/// monthly subscription (a purchase and two renewals, active until day 90) and a consumable
/// bought on day 10.
struct NotificationV1Scenario {
    static let start = Date(timeIntervalSince1970: 1_740_787_200)  // 2025-03-01T00:00:00Z
    static let day: TimeInterval = 86_400
    static let bundleId = "com.example.v1"
    static let sharedSecret = "f00dfeedf00dfeedf00dfeedf00dfeed"
    static let customer = "dana"
    static let chain = "5000001"
    static let firstRenewal = "5000002"
    static let secondRenewal = "5000003"
    static let coins = "6000001"

    /// Authorities generated once (RSA keys are slow to make).
    static let sharedSigner = Result { () throws -> SimulatorSigner in
        SimulatorSigner(
            certificateAuthority: try TestCertificateAuthority.generate(
                notBefore: start.addingTimeInterval(-400 * day), notAfter: start.addingTimeInterval(800 * day)),
            receiptAuthority: try ReceiptSigningAuthority.generate(
                validFrom: start.addingTimeInterval(-400 * day), validUntil: start.addingTimeInterval(800 * day)))
    }

    let signer: SimulatorSigner
    let store: SimulatedAppStore

    init(environment: AppStoreEnvironment = .production) throws {
        signer = try Self.sharedSigner.get()
        store = SimulatedAppStore(bundleId: Self.bundleId, appAppleId: 987_654_321, environment: environment)
        for (index, id) in [Self.chain, Self.firstRenewal, Self.secondRenewal].enumerated() {
            let date = Self.start.addingTimeInterval(Double(index) * 30 * Self.day)
            var transaction = JWSTransactionDecodedPayload(
                originalTransactionId: Self.chain, transactionId: id, webOrderLineItemId: "9\(id)", bundleId: Self.bundleId,
                productId: "pro.monthly", subscriptionGroupIdentifier: "G1", purchaseDate: date, originalPurchaseDate: Self.start,
                expiresDate: date.addingTimeInterval(30 * Self.day), quantity: 1, type: .autoRenewableSubscription,
                inAppOwnershipType: .purchased)
            transaction.environment = environment
            store.record(transaction, customerId: Self.customer)
        }
        var coins = JWSTransactionDecodedPayload(
            originalTransactionId: Self.coins, transactionId: Self.coins, bundleId: Self.bundleId, productId: "coins.100",
            purchaseDate: Self.start.addingTimeInterval(10 * Self.day), originalPurchaseDate: Self.start.addingTimeInterval(10 * Self.day),
            quantity: 1, type: .consumable, inAppOwnershipType: .purchased)
        coins.environment = environment
        store.record(coins, customerId: Self.customer)
        store.update(
            SubscriptionTruth(
                originalTransactionId: Self.chain, customerId: Self.customer, subscriptionGroupIdentifier: "G1", productId: "pro.monthly",
                expiresDate: Self.start.addingTimeInterval(90 * Self.day), lastTransactionId: Self.secondRenewal,
                recentSubscriptionStartDate: Self.start, renewalPrice: 999))
    }

    var builder: NotificationV1Builder { NotificationV1Builder(signer: signer, sharedSecret: Self.sharedSecret) }

    /// The subscription's truth as the store holds it.
    func subscription() throws -> SubscriptionTruth {
        try #require(store.subscription(Self.chain))
    }

    func transaction(_ id: String) throws -> JWSTransactionDecodedPayload {
        try #require(store.transaction(id: id))
    }

    /// The body for an event, which must exist.
    func body(
        _ type: NotificationTypeV2, _ subtype: Subtype? = nil, transaction: JWSTransactionDecodedPayload?,
        subscription: SubscriptionTruth?, day: Double, builder: NotificationV1Builder? = nil
    ) throws -> Data {
        try #require(
            try (builder ?? self.builder).body(
                type: type, subtype: subtype, transaction: transaction, subscription: subscription, store: store,
                at: Self.start.addingTimeInterval(day * Self.day)))
    }

    /// The body as untyped JSON, to check Apple's exact spellings.
    static func object(_ body: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    /// The transaction ids of a verified `latest_receipt`.
    func receiptTransactionIds(_ latestReceipt: String, at instant: Date) throws -> [String] {
        let verifier = try ReceiptVerifier(rootCertificates: [signer.receiptAuthority.rootCertificateDER])
        let receipt = try #require(verifier.verify(base64Encoded: latestReceipt, now: instant).receipt)
        #expect(receipt.bundleId == store.bundleId)
        return receipt.inAppPurchases.compactMap(\.transactionId)
    }
}
