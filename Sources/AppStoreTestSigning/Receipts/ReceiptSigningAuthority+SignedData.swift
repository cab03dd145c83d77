import AppStoreModels
import AppStoreVerification
import Crypto
import Foundation
import SwiftASN1
import X509

extension ReceiptSigningAuthority {
    /// Signs `receipt` into a DER PKCS#7 app receipt, as the App Store would issue it.
    public func sign(_ receipt: AppReceipt, options: ReceiptSigningOptions = .init()) throws -> Data {
        try sign(payload: ReceiptPayloadEncoder.encode(receipt), options: options)
    }

    /// Wraps arbitrary payload bytes in a signed DER PKCS#7 container (for malformed-payload tests).
    ///
    /// ```
    /// ContentInfo { signedData, [0] SignedData { 1, {digest}, { data, [0] OCTET STRING payload },
    ///               [0] certificates, { SignerInfo } } }
    /// ```
    public func sign(payload: [UInt8], options: ReceiptSigningOptions = .init()) throws -> Data {
        let digestOID: ASN1ObjectIdentifier
        let signatureOID: ASN1ObjectIdentifier
        let digestBytes: [UInt8]
        switch options.digest {
        case .sha1:
            digestOID = [1, 3, 14, 3, 2, 26]
            signatureOID = options.signatureAlgorithm == .rsaEncryption ? Self.rsaEncryption : [1, 2, 840, 113549, 1, 1, 5]
            digestBytes = Array(Insecure.SHA1.hash(data: payload))
        case .sha256:
            digestOID = [2, 16, 840, 1, 101, 3, 4, 2, 1]
            signatureOID = options.signatureAlgorithm == .rsaEncryption ? Self.rsaEncryption : [1, 2, 840, 113549, 1, 1, 11]
            digestBytes = Array(SHA256.hash(data: payload))
        }

        var signedAttributes: [UInt8]?
        var signedBytes = payload
        if options.signedAttributes {
            let attributes = try Self.signedAttributes(messageDigest: digestBytes)
            signedBytes = attributes
            signedAttributes = [0xA0] + attributes.dropFirst()
        }
        let signature = try signature(over: signedBytes, digest: options.digest)
        let certificates =
            options.embedRoot || intermediateCertificate == nil
            ? embeddedCertificates : Array(embeddedCertificates.dropLast())

        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
            try contentInfo.serialize(Self.signedDataOID)
            try contentInfo.appendConstructedNode(identifier: Self.tag0) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { signedData in
                    try signedData.serialize(Int64(1))
                    try signedData.appendConstructedNode(identifier: .set) { try Self.algorithm(digestOID, into: &$0) }
                    try signedData.appendConstructedNode(identifier: .sequence) { encapsulated in
                        try encapsulated.serialize(Self.dataOID)
                        encapsulated.appendConstructedNode(identifier: Self.tag0) { content in
                            content.appendPrimitiveNode(identifier: .octetString) { $0.append(contentsOf: payload) }
                        }
                    }
                    try signedData.appendConstructedNode(identifier: Self.tag0) { set in
                        for certificate in certificates { try set.serialize(certificate) }
                    }
                    try signedData.appendConstructedNode(identifier: .set) { signerInfos in
                        try signerInfos.appendConstructedNode(identifier: .sequence) { signerInfo in
                            try signerInfo.serialize(Int64(1))
                            try signerInfo.appendConstructedNode(identifier: .sequence) { sid in
                                try sid.serialize(signingCertificate.issuer)
                                sid.appendPrimitiveNode(identifier: .integer) {
                                    $0.append(contentsOf: signingCertificate.serialNumber.bytes)
                                }
                            }
                            try Self.algorithm(digestOID, into: &signerInfo)
                            if let signedAttributes { signerInfo.serializeRawBytes(signedAttributes) }
                            try Self.algorithm(signatureOID, into: &signerInfo)
                            signerInfo.appendPrimitiveNode(identifier: .octetString) { $0.append(contentsOf: signature) }
                        }
                    }
                }
            }
        }
        return Data(serializer.serializedBytes)
    }

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    private static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// `AlgorithmIdentifier { algorithm, NULL }`.
    private static func algorithm(_ oid: ASN1ObjectIdentifier, into serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.serialize(oid)
            sequence.appendPrimitiveNode(identifier: .null) { _ in }
        }
    }

    /// The DER `SET OF Attribute` with `contentType` = data and `messageDigest`, as signed.
    private static func signedAttributes(messageDigest: [UInt8]) throws -> [UInt8] {
        var contentType = DER.Serializer()
        try contentType.appendConstructedNode(identifier: .sequence) { attribute in
            try attribute.serialize(ASN1ObjectIdentifier.contentTypeAttribute)
            try attribute.appendConstructedNode(identifier: .set) { try $0.serialize(dataOID) }
        }
        var digest = DER.Serializer()
        try digest.appendConstructedNode(identifier: .sequence) { attribute in
            try attribute.serialize(ASN1ObjectIdentifier.messageDigestAttribute)
            attribute.appendConstructedNode(identifier: .set) { set in
                set.appendPrimitiveNode(identifier: .octetString) { $0.append(contentsOf: messageDigest) }
            }
        }
        var set = DER.Serializer()
        set.appendConstructedNode(identifier: .set) { members in
            for member in [contentType.serializedBytes, digest.serializedBytes].sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                members.serializeRawBytes(member)
            }
        }
        return set.serializedBytes
    }
}

extension ASN1ObjectIdentifier {
    /// CMS signed attribute `contentType` (RFC 5652 §11.1).
    fileprivate static let contentTypeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    /// CMS signed attribute `messageDigest` (RFC 5652 §11.2).
    fileprivate static let messageDigestAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
}
