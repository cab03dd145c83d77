import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation

/// Signs what the simulated App Store hands out: StoreKit 2 transactions and renewal infos, V2
/// notifications and app transactions with the test certificate authority (ES256, x5c chain
/// shaped like Apple's), and legacy PKCS#7 receipts with the receipt signing authority.
public struct SimulatorSigner: Sendable {
    public let certificateAuthority: TestCertificateAuthority
    public let receiptAuthority: ReceiptSigningAuthority

    public init(certificateAuthority: TestCertificateAuthority, receiptAuthority: ReceiptSigningAuthority) {
        self.certificateAuthority = certificateAuthority
        self.receiptAuthority = receiptAuthority
    }

    /// A transaction as Apple signs it at `signedDate`.
    public func signTransaction(_ transaction: JWSTransactionDecodedPayload, signedDate: Date) throws -> String {
        var payload = transaction
        payload.signedDate = signedDate
        return try certificateAuthority.signTransaction(payload)
    }

    /// The renewal info of a subscription as Apple signs it at `signedDate`.
    public func signRenewalInfo(_ subscription: SubscriptionTruth, store: SimulatedAppStore, signedDate: Date) throws -> String {
        try certificateAuthority.signRenewalInfo(
            subscription.renewalInfo(
                environment: store.environment, appTransactionId: store.appTransactionId(ofCustomer: subscription.customerId),
                signedDate: signedDate))
    }

    /// A V2 notification's `signedPayload` about a transaction (and its subscription's renewal
    /// info, for auto-renewable subscriptions).
    public func signNotification(
        type: NotificationTypeV2, subtype: Subtype?, uuid: String, transaction: JWSTransactionDecodedPayload?,
        subscription: SubscriptionTruth?, store: SimulatedAppStore, signedDate: Date,
        consumptionRequestReason: ConsumptionRequestReason? = nil
    ) throws -> String {
        var data = NotificationData()
        data.environment = store.environment
        data.appAppleId = store.appAppleId
        data.bundleId = store.bundleId
        data.bundleVersion = "1"
        if let transaction { data.signedTransactionInfo = try signTransaction(transaction, signedDate: signedDate) }
        if let subscription {
            data.signedRenewalInfo = try signRenewalInfo(subscription, store: store, signedDate: signedDate)
            data.status = subscription.status(at: signedDate)
        }
        data.consumptionRequestReason = consumptionRequestReason
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = type
        payload.subtype = subtype
        payload.notificationUUID = uuid
        payload.data = data
        payload.version = "2.0"
        payload.signedDate = signedDate
        return try certificateAuthority.signNotification(payload)
    }

    /// The app transaction of an account.
    public func signAppTransaction(customerId: String, store: SimulatedAppStore, signedDate: Date, originalPurchaseDate: Date) throws -> String {
        var payload = AppTransaction()
        payload.receiptType = store.environment
        payload.appAppleId = store.appAppleId
        payload.bundleId = store.bundleId
        payload.applicationVersion = "1"
        payload.originalApplicationVersion = "1"
        payload.originalPurchaseDate = originalPurchaseDate
        payload.receiptCreationDate = signedDate
        payload.appTransactionId = store.appTransactionId(ofCustomer: customerId)
        payload.originalPlatform = .iOS
        return try certificateAuthority.signAppTransaction(payload)
    }
}
