import SwiftASN1
import X509

/// The chain requirements Apple's verifiers add to RFC 5280, as a swift-certificates policy.
///
/// - The chain is exactly leaf, intermediate, root.
/// - The leaf carries ``AppleCertificateExtensions/receiptSigner`` and the intermediate
///   ``AppleCertificateExtensions/wwdrIntermediate`` (Apple's `AppStoreOIDPolicy`; Python
///   `check_oid`).
/// - Issuers allow certificate signing when they carry a key usage, and a child's authority key
///   identifier matches its issuer's subject key identifier (both enforced by OpenSSL, which
///   Apple's Python verifier uses).
/// - With `strict`, the RFC 5280 profile OpenSSL enforces under `X509_V_FLAG_X509_STRICT`
///   (Apple's Python default): CA certificates have a critical basic constraints extension, a
///   key usage and a subject key identifier; every certificate but the root has an authority key
///   identifier; key identifiers are not critical; a path length only on a CA allowed to sign
///   certificates; no certificate-signing usage on a non-CA; non-empty issuer and CA subject.
///
/// Validity dates are deliberately not checked here: the verifier caches the chain and checks
/// the dates on every use.
struct AppleChainPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []
    let strict: Bool

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "AppleChainPolicy: chain has \(chain.count) certificates, expected leaf, intermediate and root")
        }
        let leaf = chain[0]
        let intermediate = chain[1]
        let root = chain[2]
        guard leaf.extensions[oid: AppleCertificateExtensions.receiptSigner] != nil else {
            return .failsToMeetPolicy(reason: "AppleChainPolicy: leaf certificate lacks Apple's receipt signing extension 1.2.840.113635.100.6.11.1")
        }
        guard intermediate.extensions[oid: AppleCertificateExtensions.wwdrIntermediate] != nil else {
            return .failsToMeetPolicy(reason: "AppleChainPolicy: intermediate certificate lacks Apple's WWDR extension 1.2.840.113635.100.6.2.1")
        }
        do {
            for (child, issuer) in [(leaf, intermediate), (intermediate, root)] {
                if let usage = try issuer.extensions.keyUsage, !usage.keyCertSign {
                    return .failsToMeetPolicy(reason: "AppleChainPolicy: issuer \(issuer.subject) may not sign certificates (key usage)")
                }
                if let childKeyID = try child.extensions.authorityKeyIdentifier?.keyIdentifier,
                    let issuerKeyID = try issuer.extensions.subjectKeyIdentifier?.keyIdentifier,
                    childKeyID != issuerKeyID
                {
                    return .failsToMeetPolicy(reason: "AppleChainPolicy: authority key identifier of \(child.subject) does not match its issuer")
                }
            }
            if strict {
                for (index, certificate) in [leaf, intermediate, root].enumerated() {
                    if let problem = try Self.strictProfileViolation(certificate, isTrustAnchor: index == 2) {
                        return .failsToMeetPolicy(reason: "AppleChainPolicy (strict): \(certificate.subject): \(problem)")
                    }
                }
            }
        } catch {
            return .failsToMeetPolicy(reason: "AppleChainPolicy: unreadable extension: \(error)")
        }
        return .meetsPolicy
    }

    /// The first way `certificate` breaks the strict RFC 5280 profile, or `nil`.
    static func strictProfileViolation(_ certificate: Certificate, isTrustAnchor: Bool) throws -> String? {
        let extensions = certificate.extensions
        let basicConstraintsExtension = extensions[oid: .X509ExtensionID.basicConstraints]
        let basicConstraints = try extensions.basicConstraints
        let keyUsage = try extensions.keyUsage
        var isCA = false
        var hasPathLength = false
        if case .isCertificateAuthority(let maxPathLength) = basicConstraints {
            isCA = true
            hasPathLength = maxPathLength != nil
        }
        if hasPathLength, keyUsage?.keyCertSign != true {
            return "path length constraint without the certificate-signing key usage"
        }
        if isCA, basicConstraintsExtension?.critical == false {
            return "basic constraints of a CA certificate are not critical"
        }
        if isCA, keyUsage == nil {
            return "CA certificate without a key usage extension"
        }
        if !isCA, keyUsage?.keyCertSign == true {
            return "certificate-signing key usage on a certificate that is not a CA"
        }
        if certificate.issuer.isEmpty {
            return "empty issuer name"
        }
        let hasSubjectAlternativeNames = extensions[oid: .X509ExtensionID.subjectAlternativeName] != nil
        if certificate.subject.isEmpty, isCA || keyUsage?.cRLSign == true || !hasSubjectAlternativeNames {
            return "empty subject name"
        }
        if extensions[oid: .X509ExtensionID.authorityKeyIdentifier]?.critical == true {
            return "critical authority key identifier"
        }
        if extensions[oid: .X509ExtensionID.subjectKeyIdentifier]?.critical == true {
            return "critical subject key identifier"
        }
        if certificate.version == .v3 {
            if !isTrustAnchor, extensions[oid: .X509ExtensionID.authorityKeyIdentifier] == nil {
                return "missing authority key identifier"
            }
            if isCA, extensions[oid: .X509ExtensionID.subjectKeyIdentifier] == nil {
                return "CA certificate without a subject key identifier"
            }
        } else if !extensions.isEmpty {
            return "extensions on a certificate older than version 3"
        }
        return nil
    }
}
