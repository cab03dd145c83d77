import SwiftASN1
import X509

/// One signature in a receipt's PKCS#7 container (RFC 5652 §5.3).
///
/// ```
/// SignerInfo ::= SEQUENCE {
///   version INTEGER,
///   sid SignerIdentifier,  -- IssuerAndSerialNumber SEQUENCE { issuer Name, serialNumber INTEGER } | [0] SubjectKeyIdentifier
///   digestAlgorithm AlgorithmIdentifier,
///   signedAttrs [0] IMPLICIT SET OF Attribute OPTIONAL,
///   signatureAlgorithm AlgorithmIdentifier,
///   signature OCTET STRING,
///   unsignedAttrs [1] IMPLICIT SET OF Attribute OPTIONAL }
/// ```
struct ReceiptSignerInfo {
    /// The signer's issuer and serial number, when identified that way.
    var issuer: DistinguishedName?
    var serialNumber: Certificate.SerialNumber?
    /// The signer's subject key identifier, when identified that way.
    var subjectKeyIdentifier: [UInt8]?
    var digestAlgorithm: ASN1ObjectIdentifier
    /// The signed attributes re-encoded as the DER `SET OF` that the signature covers.
    var signedAttributesDER: [UInt8]?
    /// The `messageDigest` signed attribute.
    var messageDigest: [UInt8]?
    /// The `contentType` signed attribute.
    var signedContentType: ASN1ObjectIdentifier?
    var signatureAlgorithm: ASN1ObjectIdentifier
    var signature: [UInt8]

    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    init(node: ASN1Node) throws(ReceiptDecodingFailure) {
        let parts = try node.children(.sequence, "SignerInfo")
        guard parts.count >= 5 else { throw ReceiptDecodingFailure("SignerInfo: too few elements") }
        // RFC 5652 §5.3: version 1 names the signer by issuer and serial number (a SEQUENCE),
        // version 3 by subject key identifier ([0]); nothing else is valid.
        let version = try parts[0].smallInteger("SignerInfo.version")
        guard version == (parts[1].identifier == .sequence ? 1 : 3) else {
            throw ReceiptDecodingFailure("SignerInfo.version: \(version) does not match how the signer is named")
        }
        if parts[1].identifier == .sequence {
            let issuerAndSerial = try parts[1].children(.sequence, "SignerInfo.sid")
            guard issuerAndSerial.count == 2 else { throw ReceiptDecodingFailure("SignerInfo.sid: malformed") }
            do {
                issuer = try DistinguishedName(derEncoded: issuerAndSerial[0])
            } catch {
                throw ReceiptDecodingFailure("SignerInfo.sid: unreadable issuer name")
            }
            serialNumber = Certificate.SerialNumber(bytes: try issuerAndSerial[1].primitive(.integer, "SignerInfo.sid"))
        } else {
            subjectKeyIdentifier = Array(try parts[1].primitive(Self.tag0, "SignerInfo.sid"))
        }
        digestAlgorithm = try parts[2].algorithmIdentifier("SignerInfo.digestAlgorithm")
        var index = 3
        if parts[index].identifier == Self.tag0 {
            (signedAttributesDER, messageDigest, signedContentType) = try Self.signedAttributes(parts[index])
            index += 1
        }
        guard index + 1 < parts.count else { throw ReceiptDecodingFailure("SignerInfo: signature missing") }
        signatureAlgorithm = try parts[index].algorithmIdentifier("SignerInfo.signatureAlgorithm")
        signature = try parts[index + 1].octetStringBytes("SignerInfo.signature")
    }

    /// The signed attributes as DER `SET OF`, with the `messageDigest` and `contentType` values.
    private static func signedAttributes(
        _ node: ASN1Node
    ) throws(ReceiptDecodingFailure) -> ([UInt8]?, [UInt8]?, ASN1ObjectIdentifier?) {
        let attributes = try node.children(Self.tag0, "SignerInfo.signedAttrs")
        var encoded = Array(node.encodedBytes)
        guard encoded.first == 0xA0 else {
            throw ReceiptDecodingFailure("SignerInfo.signedAttrs: must be definite-length DER")
        }
        encoded[0] = 0x31
        var messageDigest: [UInt8]?
        var contentType: ASN1ObjectIdentifier?
        for attribute in attributes {
            let pair = try attribute.children(.sequence, "Attribute")
            guard pair.count == 2 else { throw ReceiptDecodingFailure("Attribute: malformed") }
            let type = try pair[0].objectIdentifier("Attribute.attrType")
            let values = try pair[1].children(.set, "Attribute.attrValues")
            guard values.count == 1 else { continue }
            if type == ReceiptObjectIdentifiers.messageDigestAttribute {
                messageDigest = try values[0].octetStringBytes("messageDigest")
            } else if type == ReceiptObjectIdentifiers.contentTypeAttribute {
                contentType = try values[0].objectIdentifier("contentType")
            }
        }
        return (encoded, messageDigest, contentType)
    }
}
