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
    /// The `sid` element as received: a verifier that has seen these exact bytes name a signer
    /// before needs no name parsing to find it again.
    var signerIdentifier: ArraySlice<UInt8>
    /// The DER of the signer's issuer name, when identified by issuer and serial number (read
    /// with ``issuer()``).
    var issuerDER: ArraySlice<UInt8>?
    var serialNumber: Certificate.SerialNumber?
    /// The signer's subject key identifier, when identified that way.
    var subjectKeyIdentifier: ArraySlice<UInt8>?
    var digestAlgorithm: ASN1ObjectIdentifier
    /// The signed attributes re-encoded as the DER `SET OF` that the signature covers.
    var signedAttributesDER: [UInt8]?
    /// The `messageDigest` signed attribute.
    var messageDigest: ArraySlice<UInt8>?
    /// The `contentType` signed attribute.
    var signedContentType: ASN1ObjectIdentifier?
    var signatureAlgorithm: ASN1ObjectIdentifier
    var signature: ArraySlice<UInt8>

    /// Reads the SignerInfo `node` of `bytes`, whose structure has been checked all the way down.
    init(node: ReceiptTLV, in bytes: ArraySlice<UInt8>, depth: Int) throws(ReceiptDecodingFailure) {
        let inner = depth + 1
        let parts = try node.children(0x30, in: bytes, "SignerInfo", depth: inner, deep: false)
        guard parts.count >= 5 else { throw ReceiptDecodingFailure("SignerInfo: too few elements") }
        // RFC 5652 §5.3: version 1 names the signer by issuer and serial number (a SEQUENCE),
        // version 3 by subject key identifier ([0]); nothing else is valid.
        let version = try parts[0].smallInteger(in: bytes, "SignerInfo.version")
        guard version == (parts[1].identifier == 0x30 ? 1 : 3) else {
            throw ReceiptDecodingFailure("SignerInfo.version: \(version) does not match how the signer is named")
        }
        signerIdentifier = bytes[parts[1].element]
        if parts[1].identifier == 0x30 {
            let issuerAndSerial = try parts[1].children(0x30, in: bytes, "SignerInfo.sid", depth: inner + 1, deep: false)
            guard issuerAndSerial.count == 2 else { throw ReceiptDecodingFailure("SignerInfo.sid: malformed") }
            issuerDER = bytes[issuerAndSerial[0].element]
            serialNumber = Certificate.SerialNumber(bytes: try issuerAndSerial[1].primitive(0x02, in: bytes, "SignerInfo.sid"))
        } else {
            subjectKeyIdentifier = try parts[1].primitive(0x80, in: bytes, "SignerInfo.sid")
        }
        digestAlgorithm = try parts[2].algorithmIdentifier(in: bytes, "SignerInfo.digestAlgorithm", depth: inner + 1)
        var index = 3
        if parts[index].identifier == 0xA0 {
            (signedAttributesDER, messageDigest, signedContentType) = try Self.signedAttributes(parts[index], in: bytes, depth: inner)
            index += 1
        }
        guard index + 1 < parts.count else { throw ReceiptDecodingFailure("SignerInfo: signature missing") }
        signatureAlgorithm = try parts[index].algorithmIdentifier(in: bytes, "SignerInfo.signatureAlgorithm", depth: inner + 1)
        signature = try parts[index + 1].octetString(in: bytes, "SignerInfo.signature", depth: inner + 1)
    }

    /// The signer's issuer name, when the signer is named by issuer and serial number.
    func issuer() throws(ReceiptDecodingFailure) -> DistinguishedName? {
        guard let issuerDER else { return nil }
        do {
            return try DistinguishedName(derEncoded: try DER.parse(issuerDER))
        } catch {
            throw ReceiptDecodingFailure("SignerInfo.sid: unreadable issuer name")
        }
    }

    /// The signed attributes as DER `SET OF`, with the `messageDigest` and `contentType` values.
    private static func signedAttributes(
        _ node: ReceiptTLV, in bytes: ArraySlice<UInt8>, depth: Int
    ) throws(ReceiptDecodingFailure) -> ([UInt8]?, ArraySlice<UInt8>?, ASN1ObjectIdentifier?) {
        let attributes = try node.children(0xA0, in: bytes, "SignerInfo.signedAttrs", depth: depth + 1, deep: false)
        guard node.isDefinite else {
            throw ReceiptDecodingFailure("SignerInfo.signedAttrs: must be definite-length DER")
        }
        var encoded = Array(bytes[node.element])
        encoded[0] = 0x31
        var messageDigest: ArraySlice<UInt8>?
        var contentType: ASN1ObjectIdentifier?
        for attribute in attributes {
            let pair = try attribute.children(0x30, in: bytes, "Attribute", depth: depth + 2, deep: false)
            guard pair.count == 2 else { throw ReceiptDecodingFailure("Attribute: malformed") }
            let type = try pair[0].objectIdentifier(in: bytes, "Attribute.attrType")
            let values = try pair[1].children(0x31, in: bytes, "Attribute.attrValues", depth: depth + 3, deep: false)
            guard values.count == 1 else { continue }
            if type == ReceiptObjectIdentifiers.messageDigestAttribute {
                messageDigest = try values[0].octetString(in: bytes, "messageDigest", depth: depth + 4)
            } else if type == ReceiptObjectIdentifiers.contentTypeAttribute {
                contentType = try values[0].objectIdentifier(in: bytes, "contentType")
            }
        }
        return (encoded, messageDigest, contentType)
    }
}
