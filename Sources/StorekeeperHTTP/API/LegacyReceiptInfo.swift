import AppStoreModels
import Foundation
import SubscriptionEngine

/// What the ledger knows, written the way Apple's `verifyReceipt` wrote it: the
/// `latest_receipt_info` transactions and the `pending_renewal_info` entries, in Apple's field
/// names and string formats (through the legacy models' encoders).
///
/// It is the inverse of the engine's legacy adapters (`PurchaseFact(legacy:)`,
/// `RenewalFact(legacy:)`), so a client that reads the response back gets the same facts.
package struct LegacyReceiptInfo: Sendable {
    package let history: PurchaseHistory

    /// Every transaction, newest purchase first (Apple promises no order; newest first is what
    /// clients most often assume). With `excludeOldTransactions`, only the newest transaction
    /// of each subscription chain (and each non-subscription purchase, which is its own chain).
    package func latestReceiptInfo(excludeOldTransactions: Bool) -> [LegacyInAppPurchase] {
        var purchases = history.effectivePurchases.sorted(by: Self.newerFirst)
        if excludeOldTransactions {
            var seen = Set<String>()
            purchases = purchases.filter { seen.insert($0.originalTransactionId).inserted }
        }
        return purchases.map(Self.legacy)
    }

    /// One entry per subscription chain the ledger has renewal facts for, ordered by chain.
    package var pendingRenewalInfo: [LegacyPendingRenewalInfo] {
        history.renewals.values.sorted { $0.originalTransactionId < $1.originalTransactionId }.map(Self.legacy)
    }

    package static func newerFirst(_ a: PurchaseFact, _ b: PurchaseFact) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        return a.transactionId > b.transactionId
    }

    /// A purchase fact as a `latest_receipt_info` entry.
    package static func legacy(_ fact: PurchaseFact) -> LegacyInAppPurchase {
        let isSubscription = fact.expiresDate != nil || fact.subscriptionGroupIdentifier != nil
        let revocation = fact.revocation
        return LegacyInAppPurchase(
            quantity: fact.quantity,
            productId: fact.productId,
            transactionId: fact.transactionId,
            originalTransactionId: fact.originalTransactionId,
            purchaseDate: fact.purchaseDate,
            originalPurchaseDate: fact.originalPurchaseDate ?? fact.purchaseDate,
            expiresDate: fact.expiresDate,
            cancellationDate: revocation?.date,
            cancellationReason: revocation.flatMap { $0.kind == .upgrade ? nil : (($0.dueToAppIssue ?? false) ? "1" : "0") },
            webOrderLineItemId: fact.webOrderLineItemId,
            isTrialPeriod: fact.offer?.kind == .freeTrial,
            isInIntroOfferPeriod: isSubscription ? fact.offer?.kind == .introductory : nil,
            isUpgraded: fact.isUpgraded ? true : nil,
            promotionalOfferId: fact.offer.flatMap { $0.kind == .promotional ? $0.identifier : nil },
            offerCodeRefName: fact.offer.flatMap { $0.kind == .offerCode ? $0.identifier : nil },
            subscriptionGroupIdentifier: fact.subscriptionGroupIdentifier,
            inAppOwnershipType: fact.ownership == .familyShared ? .familyShared : .purchased
        )
    }

    /// A renewal fact as a `pending_renewal_info` entry.
    package static func legacy(_ fact: RenewalFact) -> LegacyPendingRenewalInfo {
        LegacyPendingRenewalInfo(
            autoRenewProductId: fact.autoRenewProductId ?? fact.productId,
            productId: fact.productId,
            originalTransactionId: fact.originalTransactionId,
            autoRenewStatus: fact.willAutoRenew,
            expirationIntent: fact.expirationReason.map(expirationIntent),
            isInBillingRetryPeriod: fact.isInBillingRetry,
            gracePeriodExpiresDate: fact.gracePeriodExpiresDate,
            priceConsentStatus: fact.priceIncreaseConsent.map { $0 == .accepted },
            promotionalOfferId: fact.nextOffer.flatMap { $0.kind == .promotional ? $0.identifier : nil },
            offerCodeRefName: fact.nextOffer.flatMap { $0.kind == .offerCode ? $0.identifier : nil }
        )
    }

    package static func expirationIntent(_ reason: ExpirationReason) -> ExpirationIntent {
        switch reason {
        case .voluntary: .customerCancelled
        case .billingError: .billingError
        case .priceIncrease: .customerDidNotConsentToPriceIncrease
        case .productUnavailable: .productNotAvailable
        case .unknown: .other
        }
    }
}
