import AppStoreTestSigning
import ArgumentParser
import Crypto
import Foundation

/// The ways `storekeeper jws sign --forge` spoils a signature, so that anyone can produce the
/// inputs Apple's verifier must refuse and check that Storekeeper refuses them alike.
enum ForgeryKind: String, CaseIterable, ExpressibleByArgument {
    /// `alg` is `none` and the signature empty.
    case algNone = "alg-none"
    /// `alg` is ES384.
    case algES384 = "alg-es384"
    /// `x5c` holds only the leaf and the intermediate.
    case twoCertificates = "two-certificates"
    /// `x5c` holds the chain and the root once more.
    case fourCertificates = "four-certificates"
    /// No `x5c` header at all.
    case missingChain = "missing-chain"
    /// Signed by a key other than the leaf's.
    case foreignKey = "foreign-key"
    /// The payload replaced after signing.
    case tamperedPayload = "tampered-payload"
    /// A whole chain from another (untrusted) authority.
    case foreignRoot = "foreign-root"
    /// The leaf lacks Apple's receipt signing marker extension.
    case missingLeafMarker = "missing-leaf-marker"
    /// The intermediate lacks Apple's WWDR marker extension.
    case missingIntermediateMarker = "missing-intermediate-marker"
    /// The leaf expired before the payload's signedDate.
    case expiredLeaf = "expired-leaf"
    /// The leaf becomes valid only after the payload's signedDate.
    case futureLeaf = "future-leaf"

    /// The authority to sign with and the forgery to apply, given the honest authority.
    func apply(to authority: TestCertificateAuthority, signedDate: Date, payload: Data) throws -> (TestCertificateAuthority, JWSForgery) {
        let year: TimeInterval = 365 * 24 * 3600
        switch self {
        case .algNone:
            return (authority, JWSForgery(algorithm: "none"))
        case .algES384:
            return (authority, JWSForgery(algorithm: "ES384"))
        case .twoCertificates:
            return (authority, JWSForgery(certificateChain: [authority.leafCertificateDER, authority.intermediateCertificateDER]))
        case .fourCertificates:
            return (
                authority,
                JWSForgery(certificateChain: [
                    authority.leafCertificateDER, authority.intermediateCertificateDER,
                    authority.rootCertificateDER, authority.rootCertificateDER,
                ])
            )
        case .missingChain:
            return (authority, JWSForgery(omitsCertificateChain: true))
        case .foreignKey:
            return (authority, JWSForgery(signingKey: P256.Signing.PrivateKey()))
        case .tamperedPayload:
            var tampered = payload
            tampered.append(contentsOf: Array(" ".utf8))
            return (authority, JWSForgery(tamperedPayload: tampered))
        case .foreignRoot:
            return (try TestCertificateAuthority.generate(notBefore: signedDate - year, notAfter: signedDate + year, name: "Foreign"), .none)
        case .missingLeafMarker:
            return (try authority.reissuingLeaf(notBefore: signedDate - year, notAfter: signedDate + year, marker: false), .none)
        case .missingIntermediateMarker:
            return (try authority.reissuingIntermediate(marker: false), .none)
        case .expiredLeaf:
            return (try authority.reissuingLeaf(notBefore: signedDate - 2 * year, notAfter: signedDate - year), .none)
        case .futureLeaf:
            return (try authority.reissuingLeaf(notBefore: signedDate + 3600, notAfter: signedDate + year), .none)
        }
    }
}
