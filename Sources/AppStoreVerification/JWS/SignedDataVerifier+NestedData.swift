import AppStoreModels
import Foundation

extension SignedDataVerifier {
    /// Verifies a server notification V2 and the signed transaction, renewal info and app
    /// transaction inside it, each with its own rules.
    ///
    /// The notification is judged first; then each nested JWS present. The first nested
    /// failure makes the whole result invalid, with that failure's reason and a message naming
    /// the field.
    public func verifyAndDecodeNotificationWithNestedData(_ signedPayload: String, now: Date) async -> VerificationResult<VerifiedNotification> {
        let notification: ResponseBodyV2DecodedPayload
        switch await verifyAndDecodeNotification(signedPayload, now: now) {
        case .invalid(let failure): return .invalid(failure)
        case .valid(let payload): notification = payload
        }
        return await verifyNestedData(in: notification, now: now)
    }

    /// The nested half of ``verifyAndDecodeNotificationWithNestedData(_:now:)``, for a
    /// notification whose own JWS this verifier's ``verifyAndDecodeNotification(_:now:)``
    /// already accepted (`notification` is what it returned): the notification's app and
    /// environment are checked again against this verifier, then each nested JWS present is
    /// verified as there.
    public func verifyNestedData(of notification: ResponseBodyV2DecodedPayload, now: Date) async -> VerificationResult<VerifiedNotification> {
        do {
            try checkIdentity(of: notification)
        } catch {
            return .invalid(error)
        }
        return await verifyNestedData(in: notification, now: now)
    }

    private func verifyNestedData(in notification: ResponseBodyV2DecodedPayload, now: Date) async -> VerificationResult<VerifiedNotification> {
        var verified = VerifiedNotification(notification: notification)
        if let signed = notification.data?.signedTransactionInfo {
            switch await verifyAndDecodeTransaction(signed, now: now) {
            case .invalid(let failure): return .invalid(Self.nested(failure, field: "data.signedTransactionInfo"))
            case .valid(let transaction): verified.transaction = transaction
            }
        }
        if let signed = notification.data?.signedRenewalInfo {
            switch await verifyAndDecodeRenewalInfo(signed, now: now) {
            case .invalid(let failure): return .invalid(Self.nested(failure, field: "data.signedRenewalInfo"))
            case .valid(let renewalInfo): verified.renewalInfo = renewalInfo
            }
        }
        if let signed = notification.appData?.signedAppTransactionInfo {
            switch await verifyAndDecodeAppTransaction(signed, now: now) {
            case .invalid(let failure): return .invalid(Self.nested(failure, field: "appData.signedAppTransactionInfo"))
            case .valid(let appTransaction): verified.appTransaction = appTransaction
            }
        }
        return .valid(verified)
    }

    private static func nested(_ failure: VerificationFailure, field: String) -> VerificationFailure {
        VerificationFailure(reason: failure.reason, message: "\(field): \(failure.message)")
    }
}
