import Crypto
import Foundation
import SwiftASN1
import X509

/// Checks the RSA signature of a receipt's signer over its payload (RFC 5652 §5.4, §5.6).
///
/// The hash comes from the SignerInfo's digest algorithm; the signature algorithm is either
/// plain `rsaEncryption` (every App Store receipt, the 2020 Xcode ones) or an explicit
/// `shaNNNWithRSAEncryption` that must agree with it (Xcode 2023). With signed attributes, the
/// `messageDigest` attribute must hash the payload and the signature covers the attributes.
enum ReceiptSignatureCheck {
    static func failure(
        _ signerInfo: ReceiptSignerInfo, signer: Certificate, container: ReceiptSignedData
    ) -> String? {
        guard let algorithm = signatureAlgorithm(digest: signerInfo.digestAlgorithm, signature: signerInfo.signatureAlgorithm)
        else {
            return "unsupported signature algorithm \(signerInfo.signatureAlgorithm) with digest \(signerInfo.digestAlgorithm)"
        }
        guard container.digestAlgorithms.contains(signerInfo.digestAlgorithm) else {
            return "the signer's digest algorithm is not announced by the container"
        }
        var signedBytes = container.content
        if let attributes = signerInfo.signedAttributesDER {
            guard let messageDigest = signerInfo.messageDigest,
                let payloadDigest = digest(container.content, algorithm: signerInfo.digestAlgorithm),
                messageDigest.elementsEqual(payloadDigest)
            else {
                return "the signed messageDigest attribute does not match the payload"
            }
            if let contentType = signerInfo.signedContentType, contentType != container.contentType {
                return "the signed contentType attribute does not match the payload"
            }
            signedBytes = attributes[...]
        }
        guard signer.publicKey.isValidSignature(signerInfo.signature, for: signedBytes, signatureAlgorithm: algorithm) else {
            return "the receipt's signature is invalid"
        }
        return nil
    }

    private static func signatureAlgorithm(
        digest: ASN1ObjectIdentifier, signature: ASN1ObjectIdentifier
    ) -> Certificate.SignatureAlgorithm? {
        let byDigest: Certificate.SignatureAlgorithm
        switch digest {
        case ReceiptObjectIdentifiers.sha1: byDigest = .sha1WithRSAEncryption
        case ReceiptObjectIdentifiers.sha256: byDigest = .sha256WithRSAEncryption
        case ReceiptObjectIdentifiers.sha384: byDigest = .sha384WithRSAEncryption
        case ReceiptObjectIdentifiers.sha512: byDigest = .sha512WithRSAEncryption
        default: return nil
        }
        switch signature {
        case ReceiptObjectIdentifiers.rsaEncryption: return byDigest
        case ReceiptObjectIdentifiers.sha1WithRSAEncryption: return byDigest == .sha1WithRSAEncryption ? byDigest : nil
        case ReceiptObjectIdentifiers.sha256WithRSAEncryption: return byDigest == .sha256WithRSAEncryption ? byDigest : nil
        case ReceiptObjectIdentifiers.sha384WithRSAEncryption: return byDigest == .sha384WithRSAEncryption ? byDigest : nil
        case ReceiptObjectIdentifiers.sha512WithRSAEncryption: return byDigest == .sha512WithRSAEncryption ? byDigest : nil
        default: return nil
        }
    }

    static func digest(_ bytes: ArraySlice<UInt8>, algorithm: ASN1ObjectIdentifier) -> [UInt8]? {
        switch algorithm {
        case ReceiptObjectIdentifiers.sha1: return Array(Insecure.SHA1.hash(data: bytes))
        case ReceiptObjectIdentifiers.sha256: return Array(SHA256.hash(data: bytes))
        case ReceiptObjectIdentifiers.sha384: return Array(SHA384.hash(data: bytes))
        case ReceiptObjectIdentifiers.sha512: return Array(SHA512.hash(data: bytes))
        default: return nil
        }
    }
}
