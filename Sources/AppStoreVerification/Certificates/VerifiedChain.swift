import Crypto
import Foundation

/// What remains of a certificate chain once it has been verified: enough to check a JWS
/// signature and the chain's validity at any instant without looking at a certificate again.
///
/// Chain structure (signatures, constraints, Apple's marker extensions) does not depend on time,
/// so it is verified once and cached; only the validity window is checked on every use.
struct VerifiedChain: Sendable {
    /// The leaf's signing key.
    let signingKey: P256.Signing.PublicKey

    /// The latest `notBefore` of the leaf, intermediate and root.
    let validFrom: Date

    /// The earliest `notAfter` of the leaf, intermediate and root.
    let validUntil: Date

    /// Which configured root certificate the chain ends at (an index into the verifier's roots).
    let rootIndex: Int

    /// When an online (OCSP) check backs this entry, the instant it stops vouching for the
    /// chain; `nil` for offline entries, which never expire.
    let revocationCheckExpiry: Date?

    /// Whether every certificate of the chain is valid at `instant`, bounds included (as OpenSSL).
    func isValid(at instant: Date) -> Bool {
        validFrom <= instant && instant <= validUntil
    }

    /// Whether this entry may still be used at `now` (online entries are re-checked after a while).
    func isUsable(at now: Date) -> Bool {
        guard let revocationCheckExpiry else { return true }
        return now < revocationCheckExpiry
    }
}
