import AppStoreVerification
import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// A test certificate authority shaped like Apple's receipt chain, which signs app receipts.
///
/// Root CA → "WWDR-like" intermediate CA (marker 1.2.840.113635.100.6.2.1) → receipt-signing leaf
/// (marker 1.2.840.113635.100.6.11.1), all RSA-2048 — or, like Xcode's StoreKit Testing, a
/// single self-signed certificate. Receipts it signs verify with ``ReceiptVerifier`` configured
/// with ``rootCertificateDER``; tests forge inputs with it (wrong root, flipped bits, other
/// bundle ids) and the App Store simulator issues receipts with it.
public struct ReceiptSigningAuthority: Sendable {
    /// The root certificate (the anchor to configure in ``ReceiptVerifier``).
    public let rootCertificate: Certificate
    /// The intermediate CA; `nil` for a self-signed (Xcode-style) authority.
    public let intermediateCertificate: Certificate?
    /// The certificate whose key signs receipts (the root itself when self-signed).
    public let signingCertificate: Certificate
    private let signingKey: _RSA.Signing.PrivateKey

    /// The root certificate as DER, ready for `ReceiptVerifier(rootCertificates:)`.
    public var rootCertificateDER: Data {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(rootCertificate)
            return Data(serializer.serializedBytes)
        }
    }

    /// Generates a three-level authority (root, intermediate, leaf) with fresh RSA-2048 keys.
    ///
    /// - Parameters:
    ///   - validFrom / validUntil: the validity of all three certificates.
    ///   - certificateSignatureAlgorithm: `.sha256WithRSAEncryption` (G5 chain) or
    ///     `.sha1WithRSAEncryption` (the 2013–2023 chain).
    ///   - name: a label included in every subject, to tell authorities apart.
    public static func generate(
        validFrom: Date, validUntil: Date,
        certificateSignatureAlgorithm: Certificate.SignatureAlgorithm = .sha256WithRSAEncryption,
        name: String = "Storekeeper Test"
    ) throws -> ReceiptSigningAuthority {
        let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let intermediateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootName = try subject(common: "\(name) Root CA", unit: "\(name) Certification Authority")
        let intermediateName = try subject(common: "\(name) Worldwide Developer Relations CA", unit: "G5")
        let leafName = try subject(common: "\(name) Receipt Signing", unit: "\(name) Worldwide Developer Relations")

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: rootName, subject: rootName,
            signatureAlgorithm: certificateSignatureAlgorithm,
            extensions: try Certificate.Extensions([
                try .init(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
                try .init(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
            ]),
            issuerPrivateKey: .init(rootKey))
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: rootName, subject: intermediateName,
            signatureAlgorithm: certificateSignatureAlgorithm,
            extensions: try Certificate.Extensions([
                try .init(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true),
                try .init(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
                marker(AppleCertificateExtensions.wwdrIntermediate),
            ]),
            issuerPrivateKey: .init(rootKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: intermediateName, subject: leafName,
            signatureAlgorithm: certificateSignatureAlgorithm,
            extensions: try Certificate.Extensions([
                try .init(BasicConstraints.notCertificateAuthority, critical: true),
                try .init(KeyUsage(digitalSignature: true), critical: true),
                marker(AppleCertificateExtensions.receiptSigner),
            ]),
            issuerPrivateKey: .init(intermediateKey))
        return ReceiptSigningAuthority(
            rootCertificate: root, intermediateCertificate: intermediate, signingCertificate: leaf, signingKey: leafKey)
    }

    /// Generates a single self-signed signing certificate, like Xcode's StoreKit Testing one.
    public static func generateSelfSigned(
        validFrom: Date, validUntil: Date, name: String = "StoreKit"
    ) throws -> ReceiptSigningAuthority {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let subjectName = try subject(common: name, unit: name)
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(1), publicKey: .init(key.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: subjectName, subject: subjectName,
            signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: .init(key))
        return ReceiptSigningAuthority(
            rootCertificate: certificate, intermediateCertificate: nil, signingCertificate: certificate, signingKey: key)
    }

    /// The certificates embedded in signed receipts, leaf first, as Apple orders them.
    var embeddedCertificates: [Certificate] {
        guard let intermediateCertificate else { return [signingCertificate] }
        return [signingCertificate, intermediateCertificate, rootCertificate]
    }

    /// Signs raw bytes with the signing key, RSA PKCS#1 v1.5 over the given digest.
    func signature(over bytes: [UInt8], digest: ReceiptSigningOptions.Digest) throws -> [UInt8] {
        let signature: _RSA.Signing.RSASignature
        switch digest {
        case .sha1: signature = try signingKey.signature(for: Insecure.SHA1.hash(data: bytes), padding: .insecurePKCS1v1_5)
        case .sha256: signature = try signingKey.signature(for: SHA256.hash(data: bytes), padding: .insecurePKCS1v1_5)
        }
        return Array(signature.rawRepresentation)
    }

    /// Apple's marker extensions: non-critical, value DER NULL.
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    private static func subject(common: String, unit: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(common)
            OrganizationalUnitName(unit)
            OrganizationName("Storekeeper Test")
            CountryName("US")
        }
    }
}
