import Foundation
import SubscriptionEngine

/// The answer of `storekeeper status`: each subscription's state, the entitlements, offer
/// eligibility per subscription group, the consumable log, revenue, and what the engine could
/// not settle. Codable; every date is an ISO 8601 string (see ``ReportDate``).
public struct StatusReport: Sendable, Hashable, Codable {
    /// The instant evaluated.
    public var at: String
    /// One entry per subscription chain begun by the instant.
    public var subscriptions: [Subscription]
    /// The customer's active entitlements.
    public var entitlements: [EntitlementEntry]
    /// Eligibility per subscription group: every catalog group, and every group purchases name.
    public var eligibility: [String: Eligibility]
    /// Consumables bought by the instant.
    public var consumables: [Consumable]
    /// Money per transaction and totals per currency.
    public var revenue: Revenue
    /// Gaps the engine reported instead of guessing.
    public var diagnostics: [Diagnostic]

    /// One subscription chain's state.
    public struct Subscription: Sendable, Hashable, Codable {
        public var originalTransactionId: String
        public var transactionId: String
        public var productId: String
        public var subscriptionGroupIdentifier: String?
        /// `active`, `expired`, `billingRetry`, `gracePeriod` or `revoked`.
        public var status: SubscriptionStatus
        /// Apple's number for ``status`` (1–5).
        public var appleStatus: Int
        public var purchaseDate: String
        public var expiresDate: String?
        public var gracePeriodExpiresDate: String?
        public var accessEndsDate: String?
        public var willAutoRenew: Bool?
        public var nextProductId: String?
        public var expirationReason: ExpirationReason?
        public var offerType: OfferKind?
        public var offerIdentifier: String?
        public var ownership: Ownership
        public var revocationDate: String?
        public var revocationType: RevocationKind?
        public var revocationPercentage: Int?
        public var priceIncreaseConsent: PriceIncreaseConsent?
        public var eligibleWinBackOfferIds: [String]?
        /// When Storekeeper should next ask Apple; absent for never.
        public var nextLookDate: String?
        public var nextLookReason: NextLook.Reason?
    }

    /// One active entitlement.
    public struct EntitlementEntry: Sendable, Hashable, Codable {
        public var identifier: String
        public var productId: String
        public var productType: ProductKind
        public var transactionId: String
        public var originalTransactionId: String
        public var startDate: String
        /// Absent for access with no end (non-consumables).
        public var expiresDate: String?
        public var ownership: Ownership
        public var basis: EntitlementBasis
    }

    /// Offer eligibility in one group.
    public struct Eligibility: Sendable, Hashable, Codable {
        public var introductoryOffer: Bool
        public var promotionalOffer: Bool
        public var winBackOffer: Bool
        /// Why ``introductoryOffer`` is what it is.
        public var reason: EligibilityReason
        public var promotionalOfferReason: EligibilityReason
        public var winBackOfferReason: EligibilityReason
        public var eligibleWinBackOfferIds: [String]
    }

    /// One consumable purchase.
    public struct Consumable: Sendable, Hashable, Codable {
        public var transactionId: String
        public var productId: String
        public var purchaseDate: String
        public var quantity: Int
        public var revocationDate: String?
    }

    /// Money.
    public struct Revenue: Sendable, Hashable, Codable {
        public var transactions: [TransactionEntry]
        public var totals: [RevenueTotal]
    }

    /// One transaction's money.
    public struct TransactionEntry: Sendable, Hashable, Codable {
        public var transactionId: String
        public var productId: String
        public var purchaseDate: String
        public var price: Money?
        /// Apple's commission in basis points (3 000 = 30 %).
        public var commissionRate: Int
        public var refunded: Money?
        public var proceeds: Money?
    }
}
