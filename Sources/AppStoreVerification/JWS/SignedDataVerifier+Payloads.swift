import AppStoreModels
import Foundation

extension SignedDataVerifier {
    /// Verifies and decodes a `signedTransaction` (from the App Store Server API, a notification
    /// or a device): signature and chain, then bundle id, then environment.
    public func verifyAndDecodeTransaction(_ signedTransaction: String, now: Date) async -> VerificationResult<JWSTransactionDecodedPayload> {
        await verifyAndDecodeSignedData(signedTransaction, as: JWSTransactionDecodedPayload.self, now: now).map {
            transaction throws(VerificationFailure) in
            try checkBundleId(transaction.bundleId)
            try checkEnvironment(transaction.environment)
            return transaction
        }
    }

    /// Verifies and decodes a `signedRenewalInfo`: signature and chain, then environment (renewal
    /// infos carry no bundle id).
    public func verifyAndDecodeRenewalInfo(_ signedRenewalInfo: String, now: Date) async -> VerificationResult<JWSRenewalInfoDecodedPayload> {
        await verifyAndDecodeSignedData(signedRenewalInfo, as: JWSRenewalInfoDecodedPayload.self, now: now).map {
            renewalInfo throws(VerificationFailure) in
            try checkEnvironment(renewalInfo.environment)
            return renewalInfo
        }
    }

    /// Verifies and decodes a server notification V2 `signedPayload`.
    ///
    /// The app and environment come from the first part present of `data`, `summary`,
    /// `externalPurchaseToken` (Sandbox when its `externalPurchaseId` starts with `SANDBOX`,
    /// Production otherwise) and `appData`. The nested signed transaction, renewal info and app
    /// transaction are left encoded; see ``verifyAndDecodeNotificationWithNestedData(_:now:)``.
    public func verifyAndDecodeNotification(_ signedPayload: String, now: Date) async -> VerificationResult<ResponseBodyV2DecodedPayload> {
        await verifyAndDecodeSignedData(signedPayload, as: ResponseBodyV2DecodedPayload.self, now: now).map {
            notification throws(VerificationFailure) in
            try checkIdentity(of: notification)
            return notification
        }
    }

    /// Checks the app and environment a notification claims (see ``appIdentity(of:)``) against
    /// this verifier's.
    func checkIdentity(of notification: ResponseBodyV2DecodedPayload) throws(VerificationFailure) {
        let identity = Self.appIdentity(of: notification)
        try checkApp(bundleId: identity.bundleId, appAppleId: identity.appAppleId)
        try checkEnvironment(identity.environment)
    }

    /// Verifies and decodes a signed app transaction: signature and chain (validity at
    /// `receiptCreationDate`), then bundle id and, in production, app Apple id, then
    /// `receiptType` as the environment.
    public func verifyAndDecodeAppTransaction(_ signedAppTransaction: String, now: Date) async -> VerificationResult<AppTransaction> {
        await verifyAndDecodeSignedData(signedAppTransaction, as: AppTransaction.self, now: now).map { appTransaction throws(VerificationFailure) in
            try checkApp(bundleId: appTransaction.bundleId, appAppleId: appTransaction.appAppleId)
            try checkEnvironment(appTransaction.receiptType)
            return appTransaction
        }
    }

    /// Verifies and decodes a Retention Messaging real-time request's `signedPayload` (the body
    /// Apple posts to the Get Retention Message endpoint): signature and chain (validity at
    /// `signedDate`), then, in production, the app Apple id, then the environment. As in Apple's
    /// verifier, the payload carries no bundle id, and nothing here checks freshness or repeats:
    /// the caller decides what a stale or repeated request is.
    public func verifyAndDecodeRealtimeRequest(_ signedPayload: String, now: Date) async -> VerificationResult<DecodedRealtimeRequestBody> {
        await verifyAndDecodeSignedData(signedPayload, as: DecodedRealtimeRequestBody.self, now: now).map {
            request throws(VerificationFailure) in
            if environment == .production, request.appAppleId != appAppleId {
                throw VerificationFailure(
                    reason: .invalidAppIdentifier,
                    message: "appAppleId \(request.appAppleId.map(String.init) ?? "absent") is not \(appAppleId.map(String.init) ?? "absent")"
                )
            }
            try checkEnvironment(request.environment)
            return request
        }
    }

    /// The (bundle id, app Apple id, environment) a notification claims, as Apple derives it.
    static func appIdentity(
        of notification: ResponseBodyV2DecodedPayload
    ) -> (bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?) {
        if let data = notification.data {
            return (data.bundleId, data.appAppleId, data.environment)
        }
        if let summary = notification.summary {
            return (summary.bundleId, summary.appAppleId, summary.environment)
        }
        if let token = notification.externalPurchaseToken {
            let isSandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token.bundleId, token.appAppleId, isSandbox ? .sandbox : .production)
        }
        if let appData = notification.appData {
            return (appData.bundleId, appData.appAppleId, appData.environment)
        }
        return (nil, nil, nil)
    }

    private func checkBundleId(_ candidate: String?) throws(VerificationFailure) {
        // Code-point equality, as Python compares strings (Swift's `==` would equate
        // canonically equivalent spellings).
        guard let candidate, candidate.unicodeScalars.elementsEqual(bundleId.unicodeScalars) else {
            throw VerificationFailure(
                reason: .invalidAppIdentifier,
                message: "bundleId \(candidate.map { "\"\($0)\"" } ?? "absent") is not \"\(bundleId)\""
            )
        }
    }

    private func checkApp(bundleId candidate: String?, appAppleId candidateAppleId: Int64?) throws(VerificationFailure) {
        try checkBundleId(candidate)
        if environment == .production, candidateAppleId != appAppleId {
            throw VerificationFailure(
                reason: .invalidAppIdentifier,
                message: "appAppleId \(candidateAppleId.map(String.init) ?? "absent") is not \(appAppleId.map(String.init) ?? "absent")"
            )
        }
    }

    private func checkEnvironment(_ candidate: AppStoreEnvironment?) throws(VerificationFailure) {
        guard let candidate, candidate.rawValue.unicodeScalars.elementsEqual(environment.rawValue.unicodeScalars) else {
            throw VerificationFailure(
                reason: .invalidEnvironment,
                message: "environment \(candidate.map { "\"\($0.rawValue)\"" } ?? "absent") is not \"\(environment.rawValue)\""
            )
        }
    }
}
