import AppStoreJOSE
import AppStoreModels
import Crypto
import Foundation

extension TestCertificateAuthority {
    /// Signs arbitrary JSON bytes as Apple signs StoreKit data: ES256 by the leaf, with the
    /// header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`, unless `forgery` says otherwise.
    public func sign(jsonPayload: Data, forgery: JWSForgery = .none) throws -> String {
        let chain = forgery.certificateChain.map { $0.map { $0.base64EncodedString() } } ?? certificateChain
        let header = JWSHeader(
            algorithm: forgery.algorithm,
            certificateChain: forgery.omitsCertificateChain ? nil : chain
        )
        let signer = ES256Signer(privateKey: forgery.signingKey ?? leafKey)
        var jws = try signer.sign(payload: jsonPayload, header: header)
        if forgery.algorithm == "none", let lastDot = jws.lastIndex(of: ".") {
            jws = String(jws[...lastDot])
        }
        if let tampered = forgery.tamperedPayload {
            var segments = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            segments[1] = Base64URL.encode(tampered)
            jws = segments.joined(separator: ".")
        }
        return jws
    }

    /// Signs a transaction (`signedTransaction` / `signedTransactionInfo`).
    public func signTransaction(_ payload: JWSTransactionDecodedPayload, forgery: JWSForgery = .none) throws -> String {
        try sign(jsonPayload: ES256Signer.payloadEncoder.encode(payload), forgery: forgery)
    }

    /// Signs a subscription renewal info (`signedRenewalInfo`).
    public func signRenewalInfo(_ payload: JWSRenewalInfoDecodedPayload, forgery: JWSForgery = .none) throws -> String {
        try sign(jsonPayload: ES256Signer.payloadEncoder.encode(payload), forgery: forgery)
    }

    /// Signs a server notification V2 (`signedPayload`).
    public func signNotification(_ payload: ResponseBodyV2DecodedPayload, forgery: JWSForgery = .none) throws -> String {
        try sign(jsonPayload: ES256Signer.payloadEncoder.encode(payload), forgery: forgery)
    }

    /// Signs an app transaction.
    public func signAppTransaction(_ payload: AppTransaction, forgery: JWSForgery = .none) throws -> String {
        try sign(jsonPayload: ES256Signer.payloadEncoder.encode(payload), forgery: forgery)
    }

    /// Signs a Retention Messaging real-time request (`RealtimeRequestBody.signedPayload`).
    public func signRealtimeRequest(_ payload: DecodedRealtimeRequestBody, forgery: JWSForgery = .none) throws -> String {
        try sign(jsonPayload: ES256Signer.payloadEncoder.encode(payload), forgery: forgery)
    }
}
