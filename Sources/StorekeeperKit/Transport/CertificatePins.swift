import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 pins of certificates' public keys (the SubjectPublicKeyInfo, as HPKP and most
/// pinning libraries define them): `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64`.
///
/// A pin counts only on the chain the handshake proved, as HPKP defines it: the walk starts at
/// the first certificate the server presents (the one whose key signed the handshake) and goes
/// up through the presented certificates, each step to an issuer that is a certificate
/// authority, carries the name the certificate gives as its issuer and whose key verifies the
/// certificate's signature, until a certificate holds a pinned key. A certificate the walk does
/// not reach counts for nothing, so a server (or a man in the middle) cannot borrow a pin by
/// sending a certificate whose key it does not hold beside its own.
///
/// - A pin on the leaf's own key makes that key the server's identity: nothing else is checked,
///   so an operator may pin a self-signed certificate.
/// - A pin on an issuer's key (a private or public authority) vouches for what it signed only:
///   every certificate below the pinned one must be inside its validity period, and the leaf
///   must name the host (its subjectAltName DNS names and IP addresses; its common name when it
///   has no subjectAltName). The pinned certificate must be among those the server presents:
///   to pin a root, serve it in the chain, or pin the intermediate.
public struct CertificatePins: Sendable, Hashable {
    /// The pins' raw 32-byte digests.
    public let digests: Set<Data>

    /// Parses base64 pins, each optionally prefixed `sha256/`.
    ///
    /// - Throws: ``StorekeeperError`` (`configuration`) for a pin that is not 32 bytes of base64.
    public init(_ pins: [String]) throws {
        var digests = Set<Data>()
        for pin in pins {
            let text = pin.hasPrefix("sha256/") ? String(pin.dropFirst("sha256/".count)) : pin
            guard let digest = Data(base64Encoded: text), digest.count == 32 else {
                throw StorekeeperError(.configuration, "certificate pin \(pin) is not a base64 SHA-256 digest")
            }
            digests.insert(digest)
        }
        self.digests = digests
    }

    /// No pins: the platform's usual certificate checks only.
    public static let none = CertificatePins(digests: [])

    private init(digests: Set<Data>) {
        self.digests = digests
    }

    public var isEmpty: Bool { digests.isEmpty }

    /// Whether `chain` (DER, in the order the server of `host` presented it, its first
    /// certificate the one the handshake proved) leads to a pinned key at `now`, by the walk
    /// described on the type.
    public func matches(chain: [[UInt8]], host: String, at now: Date) -> Bool {
        guard let leafDER = chain.first else { return false }
        if isPinned(leafDER) { return true }
        guard let leaf = try? Certificate(derEncoded: leafDER) else { return false }
        var unused = chain.dropFirst().compactMap { der in (try? Certificate(derEncoded: der)).map { (der: der, certificate: $0) } }
        var current = leaf
        while current.notValidBefore <= now, now <= current.notValidAfter {
            let issued = current
            guard
                let index = unused.firstIndex(where: { candidate in
                    candidate.certificate.subject == issued.issuer && Self.isAuthority(candidate.certificate)
                        && candidate.certificate.publicKey.isValidSignature(issued.signature, for: issued)
                })
            else { return false }
            let issuer = unused.remove(at: index)
            if isPinned(issuer.der) { return Self.certificate(leaf, names: host) }
            current = issuer.certificate
        }
        return false
    }

    func isPinned(_ certificateDER: [UInt8]) -> Bool {
        Self.publicKeyDigest(certificateDER: certificateDER).map { digests.contains($0) } ?? false
    }

    /// Whether the certificate's basic constraints make it a certificate authority.
    static func isAuthority(_ certificate: Certificate) -> Bool {
        guard case .some(.isCertificateAuthority) = try? certificate.extensions.basicConstraints else { return false }
        return true
    }

    /// Whether the certificate names `host`: a DNS name (a `*.` wildcard standing for one label)
    /// or IP address of its subjectAltName, or its common name when it has no subjectAltName.
    static func certificate(_ certificate: Certificate, names host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
        let address = addressBytes(host)
        let alternativeNames: SubjectAlternativeNames?
        do {
            alternativeNames = try certificate.extensions.subjectAlternativeNames
        } catch {
            return false
        }
        guard let alternativeNames else {
            return certificate.subject.flatMap { $0 }.contains { attribute in
                attribute.type == .RDNAttributeType.commonName && String(attribute.value).map { dnsName($0, matches: host) } == true
            }
        }
        return alternativeNames.contains { name in
            switch name {
            case .dnsName(let pattern): return address == nil && dnsName(pattern, matches: host)
            case .ipAddress(let bytes): return address.map { Array(bytes.bytes) == $0 } ?? false
            default: return false
            }
        }
    }

    /// The bytes of an IPv4 or IPv6 address in text; `nil` for a name.
    static func addressBytes(_ host: String) -> [UInt8]? {
        var version4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, host, &version4) == 1 { return version4 }
        var version6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, host, &version6) == 1 { return version6 }
        return nil
    }

    static func dnsName(_ pattern: String, matches host: String) -> Bool {
        let pattern = pattern.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        guard pattern.hasPrefix("*.") else { return pattern == host }
        guard let dot = host.firstIndex(of: "."), host.startIndex < dot else { return false }
        return host[host.index(after: dot)...] == pattern.dropFirst(2)
    }

    /// The SHA-256 of a DER certificate's SubjectPublicKeyInfo; `nil` when it is not a certificate.
    public static func publicKeyDigest(certificateDER: [UInt8]) -> Data? {
        guard let info = subjectPublicKeyInfo(certificateDER: certificateDER) else { return nil }
        return Data(SHA256.hash(data: info))
    }

    /// The pin of a DER certificate, base64 (what to put in the configuration).
    public static func pin(certificateDER: [UInt8]) -> String? {
        publicKeyDigest(certificateDER: certificateDER)?.base64EncodedString()
    }

    /// The encoded SubjectPublicKeyInfo of a certificate: the seventh field of its
    /// TBSCertificate when the version is present, the sixth otherwise.
    static func subjectPublicKeyInfo(certificateDER: [UInt8]) -> ArraySlice<UInt8>? {
        guard let root = try? DER.parse(certificateDER), case .constructed(let certificate) = root.content,
            let tbs = certificate.first(where: { _ in true }), case .constructed(let fields) = tbs.content
        else { return nil }
        var nodes = Array(fields)
        if let first = nodes.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            nodes.removeFirst()
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard nodes.count > 5, nodes[5].identifier == .sequence else { return nil }
        return nodes[5].encodedBytes
    }
}
