import AppStoreModels
import AppStoreVerification
import Foundation

/// The verdict `storekeeper jws verify` prints: `{"valid", "reason", "message", "payload"}`.
///
/// `payload` is the decoded payload as Apple's library decodes it; for a notification, the
/// nested `signedTransactionInfo` and `signedRenewalInfo` are verified with the same verifier and
/// their decoded payloads added beside them in `data` as `transactionInfo` and `renewalInfo`.
/// A nested payload that fails makes the whole verdict invalid, with its reason.
struct SignedDataVerdict {
    var failure: VerificationFailure?
    var payload: [String: Any]?

    var isValid: Bool { failure == nil }

    /// The verdict as a JSON object.
    var jsonObject: [String: Any] {
        var object: [String: Any] = ["valid": isValid]
        if let failure {
            object["reason"] = failure.reason.rawValue
            object["message"] = failure.message
        }
        if let payload, isValid {
            object["payload"] = payload
        }
        return object
    }

    static func verify(_ jws: String, kind: SignedDataKind, verifier: SignedDataVerifier, now: Date) async -> SignedDataVerdict {
        switch kind {
        case .transaction:
            return make(await verifier.verifyAndDecodeTransaction(jws, now: now))
        case .renewal:
            return make(await verifier.verifyAndDecodeRenewalInfo(jws, now: now))
        case .appTransaction:
            return make(await verifier.verifyAndDecodeAppTransaction(jws, now: now))
        case .notification:
            let result = await verifier.verifyAndDecodeNotification(jws, now: now)
            var verdict = make(result)
            guard case .valid(let notification) = result, var data = verdict.payload?["data"] as? [String: Any] else {
                return verdict
            }
            if let signedTransaction = notification.data?.signedTransactionInfo {
                let nested = make(await verifier.verifyAndDecodeTransaction(signedTransaction, now: now))
                guard nested.isValid else { return SignedDataVerdict(failure: nested.failure, payload: nil) }
                data["transactionInfo"] = nested.payload
            }
            if let signedRenewalInfo = notification.data?.signedRenewalInfo {
                let nested = make(await verifier.verifyAndDecodeRenewalInfo(signedRenewalInfo, now: now))
                guard nested.isValid else { return SignedDataVerdict(failure: nested.failure, payload: nil) }
                data["renewalInfo"] = nested.payload
            }
            verdict.payload?["data"] = data
            return verdict
        }
    }

    private static func make<Payload: Encodable>(_ result: VerificationResult<Payload>) -> SignedDataVerdict {
        switch result {
        case .invalid(let failure):
            return SignedDataVerdict(failure: failure, payload: nil)
        case .valid(let payload):
            do {
                let data = try JSONEncoder().encode(payload)
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                return SignedDataVerdict(failure: nil, payload: object ?? [:])
            } catch {
                return SignedDataVerdict(
                    failure: VerificationFailure(reason: .verificationFailure, message: "payload cannot be re-encoded: \(error)"),
                    payload: nil
                )
            }
        }
    }
}
