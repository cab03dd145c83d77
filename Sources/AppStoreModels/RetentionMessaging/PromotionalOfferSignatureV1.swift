/// A legacy (ECDSA) promotional offer signature and the values it signs.
public struct PromotionalOfferSignatureV1: Codable, Hashable, Sendable {
    /// The Base64 DER ECDSA signature.
    public var encodedSignature: String

    /// The product the offer is for.
    public var productId: String

    /// The single-use UUID (as a lowercase string) included in the signature.
    public var nonce: String

    /// When the signature was made, in milliseconds since 1970.
    public var timestamp: Int64

    /// The identifier of the In-App Purchase key that signed.
    public var keyId: String

    /// The promotional offer identifier.
    public var offerIdentifier: String

    /// The UUID of the customer's account in your app, if signed with one.
    public var appAccountToken: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        encodedSignature: String,
        productId: String,
        nonce: String,
        timestamp: Int64,
        keyId: String,
        offerIdentifier: String,
        appAccountToken: String? = nil
    ) {
        self.encodedSignature = encodedSignature
        self.productId = productId
        self.nonce = nonce
        self.timestamp = timestamp
        self.keyId = keyId
        self.offerIdentifier = offerIdentifier
        self.appAccountToken = appAccountToken
    }
}
