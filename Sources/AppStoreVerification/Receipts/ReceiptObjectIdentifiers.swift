import SwiftASN1

/// Object identifiers met in PKCS#7 app receipts and their certificate chains.
enum ReceiptObjectIdentifiers {
    /// PKCS#7 / CMS `signedData` content type.
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    /// PKCS#7 / CMS `data` content type (the receipt payload).
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]

    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]

    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let sha1WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 5]
    static let sha256WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    static let sha384WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 12]
    static let sha512WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 13]

    /// CMS signed attribute `contentType`.
    static let contentTypeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    /// CMS signed attribute `messageDigest`.
    static let messageDigestAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]

    /// The identifiers above by their content octets, so that reading one from a receipt is a
    /// comparison of a few bytes rather than a parse.
    private static let byContent: [(content: [UInt8], identifier: ASN1ObjectIdentifier)] = [
        signedData, data, sha1, sha256, sha384, sha512, rsaEncryption, sha1WithRSAEncryption, sha256WithRSAEncryption,
        sha384WithRSAEncryption, sha512WithRSAEncryption, contentTypeAttribute, messageDigestAttribute,
    ].compactMap { identifier in
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(identifier)) != nil else { return nil }
        return (Array(serializer.serializedBytes.dropFirst(2)), identifier)
    }

    /// The identifier above whose content octets are `content`, if any.
    static func known(content: ArraySlice<UInt8>) -> ASN1ObjectIdentifier? {
        byContent.first { $0.content.elementsEqual(content) }?.identifier
    }
}
