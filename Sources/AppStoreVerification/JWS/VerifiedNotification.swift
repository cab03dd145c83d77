import AppStoreModels

/// A server notification V2 with the signed data it carries verified and decoded too.
public struct VerifiedNotification: Sendable {
    /// The notification itself; its nested fields keep their signed (encoded) form.
    public var notification: ResponseBodyV2DecodedPayload
    /// `data.signedTransactionInfo`, decoded.
    public var transaction: JWSTransactionDecodedPayload?
    /// `data.signedRenewalInfo`, decoded.
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    /// `appData.signedAppTransactionInfo`, decoded.
    public var appTransaction: AppTransaction?

    public init(
        notification: ResponseBodyV2DecodedPayload, transaction: JWSTransactionDecodedPayload? = nil,
        renewalInfo: JWSRenewalInfoDecodedPayload? = nil, appTransaction: AppTransaction? = nil
    ) {
        self.notification = notification
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }
}
