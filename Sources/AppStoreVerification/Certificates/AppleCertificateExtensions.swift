import SwiftASN1

/// The certificate extensions Apple uses to mark its StoreKit signing chain.
///
/// Only their presence matters; Apple encodes both as a non-critical extension whose value is
/// DER `NULL` (`05 00`).
public enum AppleCertificateExtensions {
    /// On the leaf: "Mac App Store and iTunes Store Receipt Signing" (1.2.840.113635.100.6.11.1).
    public static let receiptSigner: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// On the intermediate: Apple Worldwide Developer Relations CA (1.2.840.113635.100.6.2.1).
    public static let wwdrIntermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
}
