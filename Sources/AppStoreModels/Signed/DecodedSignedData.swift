import Foundation

/// A payload the App Store delivers as a JWS.
///
/// Verifiers use ``signatureDate`` as the validation time of the certificate chain when they
/// check offline, so data signed while a certificate was valid stays verifiable later.
public protocol DecodedSignedData: Codable, Hashable, Sendable {
    /// When the App Store signed the data: `signedDate`, or `receiptCreationDate` for an
    /// ``AppTransaction``.
    var signatureDate: Date? { get }
}

extension JWSTransactionDecodedPayload: DecodedSignedData {
    public var signatureDate: Date? { signedDate }
}

extension JWSRenewalInfoDecodedPayload: DecodedSignedData {
    public var signatureDate: Date? { signedDate }
}

extension ResponseBodyV2DecodedPayload: DecodedSignedData {
    public var signatureDate: Date? { signedDate }
}

extension DecodedRealtimeRequestBody: DecodedSignedData {
    public var signatureDate: Date? { signedDate }
}

extension AppTransaction: DecodedSignedData {
    public var signatureDate: Date? { receiptCreationDate }
}
