import Foundation

/// Everything StorekeeperKit needs from the device's App Store, so the core never imports
/// StoreKit: StoreKit 2 on Apple platforms (``StoreKitBackend``), a simulated store elsewhere.
///
/// Transactions reach the core as Apple's signed JWS (what the server verifies), already
/// checked by the store where it can (StoreKit's `VerificationResult.verified`).
public protocol StoreBackend: Sendable {
    /// The products with these ids that the store sells (unknown ids are left out).
    func products(for ids: [String]) async throws -> [StoreProduct]
    /// Buys a product; the transaction is not finished (``finish(_:)`` does that).
    func purchase(productId: String, options: StorePurchaseOptions) async -> StorePurchaseResult
    /// Transactions that arrive outside ``purchase(productId:options:)``: renewals, Ask to Buy
    /// approvals, purchases on other devices, refunds.
    func transactionUpdates() -> AsyncStream<StoreTransaction>
    /// Transactions the store delivered but the app has not finished (a crash, a failed post).
    func unfinishedTransactions() async -> [StoreTransaction]
    /// The latest transaction of everything the customer owns now.
    func currentEntitlements() async -> [StoreTransaction]
    /// Asks the App Store for the account's transactions again (may ask the user to sign in).
    func sync() async throws
    /// Tells the store the content was delivered.
    func finish(_ transaction: StoreTransaction) async
    /// Purchases the customer started in the App Store (promoted in-app purchases).
    func purchaseIntents() -> AsyncStream<PurchaseIntent>
}

/// A product as the store sells it.
public struct StoreProduct: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case autoRenewable, nonRenewable, nonConsumable, consumable
    }

    public var id: String
    public var kind: Kind
    public var displayName: String
    public var displayPrice: String
    /// The subscription group, for auto-renewable subscriptions.
    public var subscriptionGroupId: String?

    public init(id: String, kind: Kind, displayName: String, displayPrice: String, subscriptionGroupId: String? = nil) {
        self.id = id
        self.kind = kind
        self.displayName = displayName
        self.displayPrice = displayPrice
        self.subscriptionGroupId = subscriptionGroupId
    }
}

/// A transaction the store handed over, with Apple's signature.
public struct StoreTransaction: Sendable, Hashable, Codable {
    public var id: String
    public var originalId: String
    public var productId: String
    /// Apple's JWS of the transaction (StoreKit's `jwsRepresentation`).
    public var signedTransaction: String
    public var appAccountToken: UUID?
    public var purchaseDate: Date
    /// Set when Apple refunded or revoked it.
    public var revocationDate: Date?

    public init(
        id: String, originalId: String, productId: String, signedTransaction: String, appAccountToken: UUID?, purchaseDate: Date,
        revocationDate: Date? = nil
    ) {
        self.id = id
        self.originalId = originalId
        self.productId = productId
        self.signedTransaction = signedTransaction
        self.appAccountToken = appAccountToken
        self.purchaseDate = purchaseDate
        self.revocationDate = revocationDate
    }
}

/// What a purchase carries besides the product.
public struct StorePurchaseOptions: Sendable, Hashable {
    /// Links the transaction to the customer on the server (derived from the customer id).
    public var appAccountToken: UUID
    /// A promotional offer the server signed.
    public var promotionalOffer: SignedPromotionalOffer?

    public init(appAccountToken: UUID, promotionalOffer: SignedPromotionalOffer? = nil) {
        self.appAccountToken = appAccountToken
        self.promotionalOffer = promotionalOffer
    }
}

/// A promotional offer signature from the server (`POST …/offers/sign`).
public struct SignedPromotionalOffer: Sendable, Hashable, Codable {
    public var offerId: String
    public var keyId: String
    public var nonce: UUID
    public var timestamp: Int64
    /// Base64 ECDSA signature.
    public var signature: String

    public init(offerId: String, keyId: String, nonce: UUID, timestamp: Int64, signature: String) {
        self.offerId = offerId
        self.keyId = keyId
        self.nonce = nonce
        self.timestamp = timestamp
        self.signature = signature
    }
}

/// How the store's purchase ended.
public enum StorePurchaseResult: Sendable, Hashable {
    /// Paid (or free, for a trial): the transaction to deliver and finish.
    case purchased(StoreTransaction)
    /// The customer cancelled the sheet.
    case userCancelled
    /// Waiting for approval (Ask to Buy) or a payment step; arrives later as an update.
    case pending
    /// The store refused before any payment.
    case failed(StoreFailure)
}

/// Why the store refused a purchase before payment.
public enum StoreFailure: Sendable, Hashable {
    /// Purchases are not allowed on this device (parental controls, an MDM profile).
    case notAllowed
    /// The product is not for sale (not in this storefront, unknown id).
    case productUnavailable
    /// The App Store could not be reached before payment.
    case network
    /// StoreKit could not verify the transaction's signature.
    case unverified(String)
    /// Anything else, as the store described it.
    case other(String)
}

/// A purchase the customer started in the App Store (a promoted in-app purchase).
public struct PurchaseIntent: Sendable, Hashable {
    public var productId: String
    /// The promotional offer the App Store showed, if any.
    public var offerId: String?

    public init(productId: String, offerId: String? = nil) {
        self.productId = productId
        self.offerId = offerId
    }
}
