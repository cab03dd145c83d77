import Foundation

extension AppReceipt {
    /// The response Apple's `verifyReceipt` returns for this receipt, built from the receipt alone.
    ///
    /// Fields Apple adds that the receipt does not hold: `adam_id` (Apple repeats `app_item_id`),
    /// `request_date*` (the time of the request: `now`), and `environment` (from the receipt
    /// type: `Sandbox`, `Production`, or `Xcode` for StoreKit Testing receipts, which Apple's
    /// endpoint never accepted). `latest_receipt_info`, `pending_renewal_info` and
    /// `latest_receipt` need Apple's server-side history and are not produced.
    public func verifyReceiptResponse(now: Date) -> VerifyReceiptResponse {
        VerifyReceiptResponse(status: .valid, environment: environment, receipt: legacyReceipt(requestDate: now))
    }

    /// This receipt as the `receipt` object of a `verifyReceipt` response.
    public func legacyReceipt(requestDate: Date) -> LegacyReceipt {
        LegacyReceipt(
            receiptType: receiptType,
            adamId: appItemId,
            appItemId: appItemId,
            bundleId: bundleId,
            applicationVersion: applicationVersion,
            downloadId: downloadId,
            versionExternalIdentifier: versionExternalIdentifier,
            receiptCreationDate: receiptCreationDate,
            requestDate: requestDate,
            originalPurchaseDate: originalPurchaseDate,
            originalApplicationVersion: originalApplicationVersion,
            expirationDate: expirationDate,
            inApp: inAppPurchases.map(\.legacyInAppPurchase)
        )
    }
}

extension AppReceiptInAppPurchase {
    /// This record as an entry of `receipt.in_app` in a `verifyReceipt` response.
    public var legacyInAppPurchase: LegacyInAppPurchase {
        LegacyInAppPurchase(
            quantity: quantity,
            productId: productId,
            transactionId: transactionId,
            originalTransactionId: originalTransactionId,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate,
            expiresDate: expiresDate,
            cancellationDate: cancellationDate,
            webOrderLineItemId: webOrderLineItemId.map(String.init),
            isTrialPeriod: isTrialPeriod,
            isInIntroOfferPeriod: isInIntroOfferPeriod,
            promotionalOfferId: promotionalOfferId
        )
    }
}
