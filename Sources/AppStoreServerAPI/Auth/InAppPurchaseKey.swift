import Crypto
import Foundation

/// An App Store Connect In-App Purchase key: the private key of a `.p8` file and its key id.
///
/// The one secret behind API tokens, promotional offer signatures and the signed offer JWS.
public struct InAppPurchaseKey: Sendable {
    /// The key id App Store Connect shows next to the key (the JWS `kid`).
    public var keyId: String
    /// The P-256 private key.
    public var privateKey: P256.Signing.PrivateKey

    public init(keyId: String, privateKey: P256.Signing.PrivateKey) {
        self.keyId = keyId
        self.privateKey = privateKey
    }

    /// Reads the PEM text of a `.p8` file (PKCS#8 `PRIVATE KEY`, or SEC1 `EC PRIVATE KEY`).
    public init(keyId: String, pem: String) throws(AppStoreServerAPIError) {
        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw AppStoreServerAPIError(.configuration, "the signing key is not a PEM P-256 private key: \(error)")
        }
        self.init(keyId: keyId, privateKey: privateKey)
    }

    /// The public half, for verifying what this key signed.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }
}
