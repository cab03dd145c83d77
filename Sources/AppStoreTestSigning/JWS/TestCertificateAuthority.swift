import AppStoreVerification
import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority shaped exactly like Apple's StoreKit signing chain, for tests, the
/// simulator and `storekeeper jws sign`.
///
/// - root: self-signed EC P-384, ecdsa-with-SHA384, CA (critical basic constraints), critical
///   key usage keyCertSign + cRLSign, subject key identifier (like Apple Root CA - G3);
/// - intermediate: EC P-384, CA with path length 0, the same key usage, subject and authority
///   key identifiers, and Apple's WWDR marker extension 1.2.840.113635.100.6.2.1 (DER `NULL`);
/// - leaf: EC P-256, critical `CA:FALSE`, critical key usage digitalSignature, subject and
///   authority key identifiers, and the receipt signing marker 1.2.840.113635.100.6.11.1.
///
/// Apple's Python verifier accepts what it signs in its default strict mode, given
/// ``rootCertificateDER`` as the trusted root.
public struct TestCertificateAuthority: Sendable {
    public let rootKey: P384.Signing.PrivateKey
    public let intermediateKey: P384.Signing.PrivateKey
    public let leafKey: P256.Signing.PrivateKey
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate

    public init(
        rootKey: P384.Signing.PrivateKey, intermediateKey: P384.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey,
        root: Certificate, intermediate: Certificate, leaf: Certificate
    ) {
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// The root certificate, DER: what a verifier trusts.
    public var rootCertificateDER: Data { Data(Self.der(root)) }
    /// The intermediate certificate, DER.
    public var intermediateCertificateDER: Data { Data(Self.der(intermediate)) }
    /// The leaf certificate, DER.
    public var leafCertificateDER: Data { Data(Self.der(leaf)) }

    /// The `x5c` header Apple sends: leaf, intermediate, root, standard base64.
    public var certificateChain: [String] {
        [leafCertificateDER, intermediateCertificateDER, rootCertificateDER].map { $0.base64EncodedString() }
    }

    /// Which of Apple's marker extensions a generated chain carries (both, unless forging).
    public struct MarkerExtensions: Hashable, Sendable {
        public var leaf: Bool
        public var intermediate: Bool

        public init(leaf: Bool = true, intermediate: Bool = true) {
            self.leaf = leaf
            self.intermediate = intermediate
        }

        public static let all = MarkerExtensions()
    }

    /// Creates a new authority with fresh keys.
    ///
    /// - Parameters:
    ///   - notBefore, notAfter: validity of the root and intermediate.
    ///   - leafNotBefore, leafNotAfter: validity of the leaf; the CA's window by default.
    ///   - markers: leave a marker extension out to forge a chain Apple would refuse.
    ///   - name: prefix of the certificates' common names.
    ///   - ocspResponderURI: when set, the intermediate and leaf name this OCSP responder (as
    ///     Apple's do), for testing online revocation checks.
    public static func generate(
        notBefore: Date,
        notAfter: Date,
        leafNotBefore: Date? = nil,
        leafNotAfter: Date? = nil,
        markers: MarkerExtensions = .all,
        name: String = "Storekeeper Test",
        ocspResponderURI: String? = nil
    ) throws -> TestCertificateAuthority {
        let rootKey = P384.Signing.PrivateKey()
        let intermediateKey = P384.Signing.PrivateKey()
        let rootName = try Self.distinguishedName(commonName: "\(name) Root CA - G3", organizationalUnit: "\(name) Certification Authority")
        let rootPublicKey = Certificate.PublicKey(rootKey.publicKey)
        let root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: rootPublicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: Certificate.Extensions {
                SubjectKeyIdentifier(hash: rootPublicKey)
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        let intermediate = try Self.issueIntermediate(
            key: intermediateKey, root: root, rootKey: rootKey,
            notBefore: notBefore, notAfter: notAfter, marker: markers.intermediate, name: name,
            ocspResponderURI: ocspResponderURI
        )
        let authority = TestCertificateAuthority(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: P256.Signing.PrivateKey(),
            root: root, intermediate: intermediate, leaf: intermediate
        )
        return try authority.reissuingLeaf(
            notBefore: leafNotBefore ?? notBefore, notAfter: leafNotAfter ?? notAfter,
            marker: markers.leaf, name: name, ocspResponderURI: ocspResponderURI
        )
    }

    /// The same root and intermediate with a new leaf (fresh key), e.g. expired or unmarked.
    public func reissuingLeaf(
        notBefore: Date, notAfter: Date, marker: Bool = true, name: String = "Storekeeper Test", ocspResponderURI: String? = nil
    ) throws -> TestCertificateAuthority {
        let leafKey = P256.Signing.PrivateKey()
        let leafPublicKey = Certificate.PublicKey(leafKey.publicKey)
        let intermediatePublicKey = Certificate.PublicKey(intermediateKey.publicKey)
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: leafPublicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: intermediate.subject,
            subject: try Self.distinguishedName(
                commonName: "\(name) ECC Mac App Store and iTunes Store Receipt Signing",
                organizationalUnit: "\(name) Worldwide Developer Relations"
            ),
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublicKey).keyIdentifier)
                SubjectKeyIdentifier(hash: leafPublicKey)
                Critical(KeyUsage(digitalSignature: true))
                if marker {
                    Certificate.Extension(oid: AppleCertificateExtensions.receiptSigner, critical: false, value: Self.derNull)
                }
                if let ocspResponderURI {
                    Self.ocspAccess(ocspResponderURI)
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(intermediateKey)
        )
        return TestCertificateAuthority(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey,
            root: root, intermediate: intermediate, leaf: leaf
        )
    }

    static func issueIntermediate(
        key: P384.Signing.PrivateKey, root: Certificate, rootKey: P384.Signing.PrivateKey,
        notBefore: Date, notAfter: Date, marker: Bool, name: String, ocspResponderURI: String?
    ) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: root.subject,
            subject: try Self.distinguishedName(
                commonName: "\(name) Worldwide Developer Relations Certification Authority", organizationalUnit: "G6"
            ),
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: root.publicKey).keyIdentifier)
                SubjectKeyIdentifier(hash: publicKey)
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if marker {
                    Certificate.Extension(oid: AppleCertificateExtensions.wwdrIntermediate, critical: false, value: Self.derNull)
                }
                if let ocspResponderURI {
                    Self.ocspAccess(ocspResponderURI)
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
    }

    static func ocspAccess(_ uri: String) -> AuthorityInformationAccess {
        AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(uri))])
    }

    /// DER `NULL`, the value Apple gives its marker extensions.
    static let derNull: ArraySlice<UInt8> = [0x05, 0x00]

    static func distinguishedName(commonName: String, organizationalUnit: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(commonName)
            OrganizationalUnitName(organizationalUnit)
            OrganizationName("Storekeeper")
            CountryName("US")
        }
    }

    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        // Serializing a certificate this module built or parsed cannot fail.
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
