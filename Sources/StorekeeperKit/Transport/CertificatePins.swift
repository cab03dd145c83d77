import Crypto
import Foundation
import SwiftASN1

/// SHA-256 pins of certificates' public keys (the SubjectPublicKeyInfo, as HPKP and most
/// pinning libraries define them): `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64`.
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

    /// Whether any certificate of `chain` (DER) has a pinned public key.
    public func matches(chain: [[UInt8]]) -> Bool {
        chain.contains { certificate in
            Self.publicKeyDigest(certificateDER: certificate).map { digests.contains($0) } ?? false
        }
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
