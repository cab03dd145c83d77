import Crypto
import Foundation

/// The legacy promotional offer signature (StoreKit 1 `SKPaymentDiscount`, StoreKit 2
/// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
///
/// Apple's format: ECDSA P-256 with SHA-256 over the UTF-8 string
/// `bundleId⁣keyId⁣productId⁣offerId⁣appAccountToken⁣nonce⁣timestamp`, the fields joined by
/// U+2063 INVISIBLE SEPARATOR, the app account token and nonce in lower case, the timestamp in
/// milliseconds; the signature is the standard base64 of its DER encoding. Apple keeps the offer
/// valid for 24 hours after the timestamp; use a fresh nonce for every signature.
public struct PromotionalOfferSignature: Hashable, Sendable {
    /// The signed fields.
    public struct Fields: Hashable, Sendable, Codable {
        public var bundleId: String
        /// The In-App Purchase key id.
        public var keyId: String
        public var productId: String
        /// The subscription offer's identifier in App Store Connect.
        public var offerId: String
        /// The customer's app account token (StoreKit 1 `applicationUsername`); may be empty.
        public var appAccountToken: String
        public var nonce: UUID
        /// Milliseconds since 1970.
        public var timestamp: Int64

        public init(
            bundleId: String, keyId: String, productId: String, offerId: String, appAccountToken: String,
            nonce: UUID, timestamp: Int64
        ) {
            self.bundleId = bundleId
            self.keyId = keyId
            self.productId = productId
            self.offerId = offerId
            self.appAccountToken = appAccountToken
            self.nonce = nonce
            self.timestamp = timestamp
        }

        /// The field separator, U+2063 INVISIBLE SEPARATOR (UTF-8 `e2 81 a3`).
        public static let separator = "\u{2063}"

        /// The exact string Apple verifies.
        public var signedString: String {
            [
                bundleId, keyId, productId, offerId, appAccountToken.lowercased(), nonce.uuidString.lowercased(),
                String(timestamp),
            ].joined(separator: Self.separator)
        }
    }

    /// The signed fields.
    public var fields: Fields
    /// The standard base64 of the DER-encoded ECDSA signature.
    public var signature: String

    /// Signs `fields` with `privateKey`.
    public init(fields: Fields, privateKey: P256.Signing.PrivateKey) throws(AppStoreServerAPIError) {
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: Data(fields.signedString.utf8))
        } catch {
            throw AppStoreServerAPIError(.signing, "cannot sign the promotional offer: \(error)")
        }
        self.init(fields: fields, signature: signature.derRepresentation.base64EncodedString())
    }

    /// Signs `fields` with `key`; the key's id must be the one in `fields`.
    public init(fields: Fields, key: InAppPurchaseKey) throws(AppStoreServerAPIError) {
        guard fields.keyId == key.keyId else {
            throw AppStoreServerAPIError(.configuration, "the offer names key \(fields.keyId) but the signing key is \(key.keyId)")
        }
        try self.init(fields: fields, privateKey: key.privateKey)
    }

    /// A signature received from elsewhere, to verify.
    public init(fields: Fields, signature: String) {
        self.fields = fields
        self.signature = signature
    }

    /// Whether ``signature`` is a valid signature of the fields' string under `publicKey`.
    /// Anything unreadable is simply not valid.
    public func isValid(publicKey: P256.Signing.PublicKey) -> Bool {
        guard let der = Data(base64Encoded: signature),
            let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else { return false }
        return publicKey.isValidSignature(ecdsa, for: Data(fields.signedString.utf8))
    }
}
