import SwiftASN1
import X509

/// The PKCS#7 / CMS container of an app receipt (RFC 5652), read from DER or from the
/// indefinite-length BER that Xcode writes.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OBJECT IDENTIFIER, content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE {
///   version INTEGER, digestAlgorithms SET OF AlgorithmIdentifier,
///   encapContentInfo SEQUENCE { eContentType OBJECT IDENTIFIER, eContent [0] EXPLICIT OCTET STRING OPTIONAL },
///   certificates [0] IMPLICIT SET OF Certificate OPTIONAL,
///   crls [1] IMPLICIT SET OF ANY OPTIONAL,
///   signerInfos SET OF SignerInfo }
/// ```
struct ReceiptSignedData {
    /// The digest algorithms the container announces.
    var digestAlgorithms: [ASN1ObjectIdentifier]
    /// `eContentType`: `data` for receipts.
    var contentType: ASN1ObjectIdentifier
    /// The signed payload (the receipt's ASN.1 attribute set), OCTET STRING segments joined.
    var content: [UInt8]
    /// The certificates embedded in the container, in their order.
    var certificates: [Certificate]
    /// Their DER encodings, in the same order.
    var certificateEncodings: [[UInt8]]
    /// The signatures over the payload.
    var signerInfos: [ReceiptSignerInfo]

    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let tag1 = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    /// Parses the container; `certificate` reads each embedded certificate's DER (a verifier
    /// passes one that remembers the certificates it has seen).
    init(
        berEncoded bytes: [UInt8], certificate: ([UInt8]) throws -> Certificate = { try Certificate(derEncoded: $0) }
    ) throws(ReceiptDecodingFailure) {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw ReceiptDecodingFailure("not ASN.1: \(error)")
        }
        guard root.encodedBytes.count == bytes.count || root.encodedBytes.isEmpty else {
            throw ReceiptDecodingFailure("trailing bytes after the PKCS#7 container")
        }
        let contentInfo = try root.children(.sequence, "ContentInfo")
        guard contentInfo.count == 2 else { throw ReceiptDecodingFailure("ContentInfo: expected 2 elements") }
        guard try contentInfo[0].objectIdentifier("ContentInfo.contentType") == ReceiptObjectIdentifiers.signedData else {
            throw ReceiptDecodingFailure("ContentInfo: not PKCS#7 signedData")
        }
        let wrapped = try contentInfo[1].children(Self.tag0, "ContentInfo.content")
        guard wrapped.count == 1 else { throw ReceiptDecodingFailure("ContentInfo.content: expected 1 element") }
        let signedData = try wrapped[0].children(.sequence, "SignedData")
        guard signedData.count >= 4 else { throw ReceiptDecodingFailure("SignedData: too few elements") }

        // Version 1: signers named by issuer and serial number and id-data content, as in every
        // receipt Apple and Xcode have produced (RFC 5652 §5.1).
        guard try signedData[0].smallInteger("SignedData.version") == 1 else {
            throw ReceiptDecodingFailure("SignedData.version: only version 1 occurs in receipts")
        }
        digestAlgorithms = try signedData[1].children(.set, "SignedData.digestAlgorithms").map {
            node throws(ReceiptDecodingFailure) in try node.algorithmIdentifier("SignedData.digestAlgorithms")
        }

        let encapsulated = try signedData[2].children(.sequence, "EncapsulatedContentInfo")
        guard encapsulated.count == 2 else {
            throw ReceiptDecodingFailure("EncapsulatedContentInfo: the receipt payload is missing")
        }
        contentType = try encapsulated[0].objectIdentifier("EncapsulatedContentInfo.eContentType")
        let eContent = try encapsulated[1].children(Self.tag0, "EncapsulatedContentInfo.eContent")
        guard eContent.count == 1 else { throw ReceiptDecodingFailure("eContent: expected one OCTET STRING") }
        content = try eContent[0].octetStringBytes("eContent")

        var index = 3
        var certificates: [Certificate] = []
        var encodings: [[UInt8]] = []
        if signedData[index].identifier == Self.tag0 {
            for node in try signedData[index].children(Self.tag0, "SignedData.certificates") {
                guard node.identifier == .sequence, !node.encodedBytes.isEmpty else {
                    throw ReceiptDecodingFailure("SignedData.certificates: unsupported certificate choice")
                }
                do {
                    let der = Array(node.encodedBytes)
                    certificates.append(try certificate(der))
                    encodings.append(der)
                } catch {
                    throw ReceiptDecodingFailure("SignedData.certificates: unreadable certificate")
                }
            }
            index += 1
        }
        self.certificates = certificates
        certificateEncodings = encodings
        if index < signedData.count, signedData[index].identifier == Self.tag1 {
            index += 1
        }
        guard index == signedData.count - 1 else { throw ReceiptDecodingFailure("SignedData: unexpected elements") }
        signerInfos = try signedData[index].children(.set, "SignedData.signerInfos").map {
            node throws(ReceiptDecodingFailure) in try ReceiptSignerInfo(node: node)
        }
    }
}
