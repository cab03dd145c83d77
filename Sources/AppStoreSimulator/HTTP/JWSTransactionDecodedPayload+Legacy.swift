import AppStoreModels
import AppStoreVerification
import Foundation

extension JWSTransactionDecodedPayload {
    /// Whether the transaction's period was a free trial.
    var isFreeTrial: Bool {
        offerType == .introductoryOffer && offerDiscountType == .freeTrial
    }

    /// Whether the transaction's period was a paid introductory offer.
    var isPaidIntroductoryOffer: Bool {
        offerType == .introductoryOffer && offerDiscountType != .freeTrial
    }

    /// The transaction as a `latest_receipt_info` entry of Apple's `verifyReceipt`.
    var legacyInAppPurchase: LegacyInAppPurchase {
        let isSubscription = type == .autoRenewableSubscription
        return LegacyInAppPurchase(
            quantity: quantity.map(Int.init) ?? 1,
            productId: productId,
            transactionId: transactionId,
            originalTransactionId: originalTransactionId ?? transactionId,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate ?? purchaseDate,
            expiresDate: expiresDate,
            cancellationDate: revocationDate,
            cancellationReason: revocationDate == nil ? nil : String(revocationReason?.rawValue ?? 0),
            webOrderLineItemId: webOrderLineItemId,
            isTrialPeriod: isFreeTrial,
            isInIntroOfferPeriod: isSubscription ? isPaidIntroductoryOffer : nil,
            isUpgraded: isUpgraded == true ? true : nil,
            promotionalOfferId: offerType == .promotionalOffer ? offerIdentifier : nil,
            offerCodeRefName: offerType == .offerCode ? offerIdentifier : nil,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            inAppOwnershipType: inAppOwnershipType ?? .purchased,
            appAccountToken: appAccountToken)
    }

    /// The transaction as an in-app purchase attribute (17) of a PKCS#7 app receipt, as it
    /// stood at `instant` (a revocation after `instant` is not in it yet).
    func receiptInAppPurchase(at instant: Date) -> AppReceiptInAppPurchase {
        AppReceiptInAppPurchase(
            quantity: quantity.map(Int.init) ?? 1,
            productId: productId,
            transactionId: transactionId,
            purchaseDate: purchaseDate,
            originalTransactionId: originalTransactionId ?? transactionId,
            originalPurchaseDate: originalPurchaseDate ?? purchaseDate,
            expiresDate: expiresDate,
            webOrderLineItemId: webOrderLineItemId.flatMap { Int64($0) },
            cancellationDate: revocationDate.flatMap { $0 <= instant ? $0 : nil },
            isTrialPeriod: isFreeTrial,
            isInIntroOfferPeriod: isPaidIntroductoryOffer,
            promotionalOfferId: offerType == .promotionalOffer ? offerIdentifier : nil)
    }
}
