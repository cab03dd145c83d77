/// How ``ReceiptSigningAuthority`` shapes a signed receipt; the defaults match a current
/// App Store receipt (SHA-256, `rsaEncryption`, no signed attributes, root embedded).
public struct ReceiptSigningOptions: Hashable, Sendable {
    /// The digest of the SignerInfo.
    public enum Digest: Hashable, Sendable {
        /// SHA-1, as App Store receipts until 2023.
        case sha1
        /// SHA-256, as G5-chain receipts and Xcode.
        case sha256
    }

    /// How the SignerInfo names its signature algorithm.
    public enum SignatureAlgorithmStyle: Hashable, Sendable {
        /// `rsaEncryption`, the hash implied by the digest algorithm (App Store, Xcode 2020).
        case rsaEncryption
        /// `sha1WithRSAEncryption` / `sha256WithRSAEncryption` (Xcode 2023).
        case withDigest
    }

    public var digest: Digest
    public var signatureAlgorithm: SignatureAlgorithmStyle
    /// Sign `contentType` and `messageDigest` attributes instead of the content directly.
    public var signedAttributes: Bool
    /// Embed the root certificate after leaf and intermediate, as Apple does.
    public var embedRoot: Bool

    public init(
        digest: Digest = .sha256, signatureAlgorithm: SignatureAlgorithmStyle = .rsaEncryption,
        signedAttributes: Bool = false, embedRoot: Bool = true
    ) {
        self.digest = digest
        self.signatureAlgorithm = signatureAlgorithm
        self.signedAttributes = signedAttributes
        self.embedRoot = embedRoot
    }
}
