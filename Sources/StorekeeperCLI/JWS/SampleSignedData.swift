import AppStoreModels
import Foundation

/// Realistic payloads for `storekeeper jws sign` when no payload file is given: a new monthly
/// subscription bought at `now`.
struct SampleSignedData {
    var bundleId: String
    var environment: AppStoreEnvironment
    var appAppleId: Int64?
    var productId: String
    var subscriptionGroupIdentifier: String
    var originalTransactionId: String
    var transactionId: String
    var now: Date

    var transaction: JWSTransactionDecodedPayload {
        var transaction = JWSTransactionDecodedPayload()
        transaction.originalTransactionId = originalTransactionId
        transaction.transactionId = transactionId
        transaction.webOrderLineItemId = String(transactionId.reversed())
        transaction.bundleId = bundleId
        transaction.productId = productId
        transaction.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        transaction.purchaseDate = now
        transaction.originalPurchaseDate = now
        transaction.expiresDate = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: now)
        transaction.quantity = 1
        transaction.type = .autoRenewableSubscription
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = now
        transaction.environment = environment
        transaction.transactionReason = .purchase
        transaction.storefront = "USA"
        transaction.storefrontId = "143441"
        transaction.price = 9990
        transaction.currency = "USD"
        return transaction
    }

    var renewalInfo: JWSRenewalInfoDecodedPayload {
        var renewalInfo = JWSRenewalInfoDecodedPayload()
        renewalInfo.originalTransactionId = originalTransactionId
        renewalInfo.productId = productId
        renewalInfo.autoRenewProductId = productId
        renewalInfo.autoRenewStatus = .on
        renewalInfo.signedDate = now
        renewalInfo.environment = environment
        renewalInfo.recentSubscriptionStartDate = now
        renewalInfo.renewalDate = transaction.expiresDate
        renewalInfo.renewalPrice = 9990
        renewalInfo.currency = "USD"
        return renewalInfo
    }

    func notification(signedTransactionInfo: String, signedRenewalInfo: String) -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            notificationType: .subscribed,
            subtype: .initialBuy,
            notificationUUID: UUID().uuidString.lowercased(),
            data: NotificationData(
                environment: environment,
                appAppleId: appAppleId,
                bundleId: bundleId,
                bundleVersion: "1",
                signedTransactionInfo: signedTransactionInfo,
                signedRenewalInfo: signedRenewalInfo,
                status: .active
            ),
            version: "2.0",
            signedDate: now
        )
    }

    var appTransaction: AppTransaction {
        var appTransaction = AppTransaction()
        appTransaction.receiptType = environment
        appTransaction.appAppleId = appAppleId
        appTransaction.bundleId = bundleId
        appTransaction.applicationVersion = "1"
        appTransaction.receiptCreationDate = now
        appTransaction.originalPurchaseDate = now
        appTransaction.originalApplicationVersion = "1"
        appTransaction.appTransactionId = String(transactionId.reversed())
        appTransaction.originalPlatform = .iOS
        return appTransaction
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, for adding billing periods.
    static let gregorianUTC: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
