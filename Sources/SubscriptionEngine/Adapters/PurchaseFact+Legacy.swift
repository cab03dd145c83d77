import AppStoreModels
import Foundation

extension PurchaseFact {
    /// Normalizes one legacy transaction: an entry of a receipt's `in_app`, of a `verifyReceipt`
    /// response's `latest_receipt_info`, or of a V1 notification's `unified_receipt`. `nil` when
    /// it lacks a transaction id, product id or purchase date.
    ///
    /// Legacy data carries no product type and no price: the catalog supplies both. A
    /// `cancellation_date` becomes a ``Revocation`` (an upgrade when `is_upgraded`, a family
    /// revocation on a family-shared transaction, otherwise a refund). `is_trial_period`,
    /// `is_in_intro_offer_period`, `promotional_offer_id` and `offer_code_ref_name` become the
    /// ``Offer``. Legacy data is unsigned, so any signed fact about the transaction supersedes it.
    public init?(legacy purchase: LegacyInAppPurchase) {
        guard let transactionId = purchase.transactionId, let productId = purchase.productId,
            let purchaseDate = purchase.purchaseDate
        else { return nil }
        let ownership = purchase.inAppOwnershipType.flatMap { Ownership(appleValue: $0.rawValue) } ?? .purchased
        let isUpgraded = purchase.isUpgraded ?? false
        var revocation: Revocation?
        if let date = purchase.cancellationDate {
            let kind: RevocationKind = isUpgraded ? .upgrade : ownership == .familyShared ? .familyRevoke : .refund
            let reason = purchase.cancellationReason.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            revocation = Revocation(date: date, kind: kind, dueToAppIssue: reason.map { $0 == 1 })
        }
        let offer: Offer?
        if purchase.isTrialPeriod == true {
            offer = Offer(kind: .freeTrial)
        } else if purchase.isInIntroOfferPeriod == true {
            offer = Offer(kind: .introductory)
        } else if let id = purchase.promotionalOfferId, !id.isEmpty {
            offer = Offer(kind: .promotional, identifier: id)
        } else if let code = purchase.offerCodeRefName, !code.isEmpty {
            offer = Offer(kind: .offerCode, identifier: code)
        } else {
            offer = nil
        }
        self.init(
            transactionId: transactionId,
            originalTransactionId: purchase.originalTransactionId ?? transactionId,
            productId: productId,
            subscriptionGroupIdentifier: purchase.subscriptionGroupIdentifier,
            purchaseDate: purchaseDate,
            originalPurchaseDate: purchase.originalPurchaseDate,
            expiresDate: purchase.expiresDate,
            quantity: purchase.quantity ?? 1,
            offer: offer,
            ownership: ownership,
            revocation: revocation,
            isUpgraded: isUpgraded,
            webOrderLineItemId: purchase.webOrderLineItemId
        )
    }
}
