import SwiftASN1

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
///
/// Read with ``ReceiptTLV`` as slices of the input. Every element's structure is checked except
/// inside the embedded certificates, which are only sliced: a verifier parses them as X.509
/// (or finds the same bytes among the certificates it has already parsed and verified).
struct ReceiptSignedData {
    /// The digest algorithms the container announces.
    var digestAlgorithms: [ASN1ObjectIdentifier]
    /// `eContentType`: `data` for receipts.
    var contentType: ASN1ObjectIdentifier
    /// The signed payload (the receipt's ASN.1 attribute set), OCTET STRING segments joined.
    var content: ArraySlice<UInt8>
    /// The content octets of the `certificates` field (empty when absent): every embedded
    /// certificate, in order, exactly as received.
    var certificatesField: ArraySlice<UInt8>
    /// The DER of each embedded certificate, in order.
    var certificateEncodings: [ArraySlice<UInt8>]
    /// The signatures over the payload.
    var signerInfos: [ReceiptSignerInfo]

    /// Reads the container; with `decodingIssuerNames`, the signers' issuer names are parsed
    /// too (a verifier that recognises a signer by its bytes leaves that to ``decodeIssuerNames()``).
    init(berEncoded bytes: [UInt8], decodingIssuerNames: Bool = true) throws(ReceiptDecodingFailure) {
        let input = bytes[...]
        let root = try ReceiptTLV.whole(input, deep: false, "PKCS#7 container")
        let contentInfo = try root.children(0x30, in: input, "ContentInfo", depth: 1, deep: false)
        guard contentInfo.count == 2 else { throw ReceiptDecodingFailure("ContentInfo: expected 2 elements") }
        guard try contentInfo[0].objectIdentifier(in: input, "ContentInfo.contentType") == ReceiptObjectIdentifiers.signedData else {
            throw ReceiptDecodingFailure("ContentInfo: not PKCS#7 signedData")
        }
        let wrapped = try contentInfo[1].children(0xA0, in: input, "ContentInfo.content", depth: 2, deep: false)
        guard wrapped.count == 1 else { throw ReceiptDecodingFailure("ContentInfo.content: expected 1 element") }
        let signedData = try wrapped[0].children(0x30, in: input, "SignedData", depth: 3, deep: false)
        guard signedData.count >= 4 else { throw ReceiptDecodingFailure("SignedData: too few elements") }

        // Version 1: signers named by issuer and serial number and id-data content, as in every
        // receipt Apple and Xcode have produced (RFC 5652 §5.1).
        guard try signedData[0].smallInteger(in: input, "SignedData.version") == 1 else {
            throw ReceiptDecodingFailure("SignedData.version: only version 1 occurs in receipts")
        }
        digestAlgorithms = try signedData[1].children(0x31, in: input, "SignedData.digestAlgorithms", depth: 4).map {
            node throws(ReceiptDecodingFailure) in try node.algorithmIdentifier(in: input, "SignedData.digestAlgorithms", depth: 5)
        }

        let encapsulated = try signedData[2].children(0x30, in: input, "EncapsulatedContentInfo", depth: 4)
        guard encapsulated.count == 2 else {
            throw ReceiptDecodingFailure("EncapsulatedContentInfo: the receipt payload is missing")
        }
        contentType = try encapsulated[0].objectIdentifier(in: input, "EncapsulatedContentInfo.eContentType")
        let eContent = try encapsulated[1].children(0xA0, in: input, "EncapsulatedContentInfo.eContent", depth: 5)
        guard eContent.count == 1 else { throw ReceiptDecodingFailure("eContent: expected one OCTET STRING") }
        content = try eContent[0].octetString(in: input, "eContent", depth: 6)

        var index = 3
        certificatesField = []
        certificateEncodings = []
        if signedData[index].identifier == 0xA0 {
            let field = signedData[index]
            for node in try field.children(0xA0, in: input, "SignedData.certificates", depth: 4, deep: false) {
                // The certificate choice (other choices are [n]-tagged), in DER as X.509 requires.
                guard node.identifier == 0x30, node.isDefinite else {
                    throw ReceiptDecodingFailure("SignedData.certificates: unsupported certificate choice")
                }
                certificateEncodings.append(input[node.element])
            }
            certificatesField = input[field.content]
            index += 1
        }
        if index < signedData.count, signedData[index].identifier == 0xA1 {
            // Not used, but it must be well-formed BER all the same.
            guard (try? ReceiptTLV.read(input, at: signedData[index].start, depth: 3)) != nil else {
                throw ReceiptDecodingFailure("SignedData.crls: not ASN.1")
            }
            index += 1
        }
        guard index == signedData.count - 1 else { throw ReceiptDecodingFailure("SignedData: unexpected elements") }
        signerInfos = try signedData[index].children(0x31, in: input, "SignedData.signerInfos", depth: 4).map {
            node throws(ReceiptDecodingFailure) in try ReceiptSignerInfo(node: node, in: input, depth: 4)
        }
        if decodingIssuerNames { try decodeIssuerNames() }
    }

    /// Refuses the container if a signer's issuer name is unreadable.
    func decodeIssuerNames() throws(ReceiptDecodingFailure) {
        for signerInfo in signerInfos { _ = try signerInfo.issuer() }
    }
}
