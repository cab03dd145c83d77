import Crypto
import Foundation
@_spi(DisableValidityCheck) @_spi(FixedExpiryValidationTime) import X509

/// Verifies an x5c leaf and intermediate against the configured roots, independently of time.
///
/// The chain is built by swift-certificates from the leaf through the intermediate to one of
/// the roots (the JWS's third x5c certificate is never looked at), under RFC 5280 with validity
/// checking switched off and ``AppleChainPolicy``. The result keeps the validity window, which
/// the caller checks at the payload's date, so the same chain can be cached for every date.
struct ChainValidator: Sendable {
    let roots: [Certificate]
    let strict: Bool

    init(rootCertificates: [Data], strict: Bool) throws(SignedDataVerifier.ConfigurationError) {
        var roots: [Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            do {
                roots.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw SignedDataVerifier.ConfigurationError(
                    code: .invalidRootCertificate,
                    message: "root certificate \(index) is not a DER X.509 certificate: \(error)"
                )
            }
        }
        self.roots = roots
        self.strict = strict
    }

    /// Decodes and verifies the chain; `online` adds OCSP checks of leaf and intermediate at `now`.
    func validate(leafDER: [UInt8], intermediateDER: [UInt8], online: OnlineChecks?, now: Date) async -> Result<VerifiedChain, VerificationFailure> {
        let leaf: Certificate
        let intermediate: Certificate
        do {
            leaf = try Certificate(derEncoded: leafDER)
        } catch {
            return .failure(.invalidCertificate("x5c[0] is not a DER X.509 certificate: \(error)"))
        }
        do {
            intermediate = try Certificate(derEncoded: intermediateDER)
        } catch {
            return .failure(.invalidCertificate("x5c[1] is not a DER X.509 certificate: \(error)"))
        }

        let result: CertificateValidationResult
        var transportFailure: String?
        if let online {
            let failures = RecordingOCSPRequester.FailureLog()
            let requester = RecordingOCSPRequester(transport: online.transport, failures: failures)
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy.withValidityCheckDisabled()
                AppleChainPolicy(strict: strict)
                OCSPVerifierPolicy(failureMode: .hard, requester: requester, fixedExpiryValidationTime: now)
            }
            result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
            transportFailure = failures.first
        } else {
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy.withValidityCheckDisabled()
                AppleChainPolicy(strict: strict)
            }
            result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        }

        switch result {
        case .couldNotValidate(let failures):
            if let transportFailure {
                return .failure(VerificationFailure(reason: .retryableVerificationFailure, message: transportFailure))
            }
            let detail = failures.map { "\($0.policyFailureReason)" }.joined(separator: "; ")
            return .failure(
                .verificationFailure(
                    "certificate chain does not verify to a configured root" + (detail.isEmpty ? "" : ": \(detail)")
                ))
        case .validCertificate(let chain):
            let certificates = Array(chain)
            guard certificates.count == 3, let root = certificates.last,
                let rootIndex = roots.firstIndex(of: root)
            else {
                return .failure(.verificationFailure("certificate chain does not end at a configured root"))
            }
            guard let signingKey = P256.Signing.PublicKey(leaf.publicKey) else {
                return .failure(.verificationFailure("leaf certificate key is not an EC P-256 key, as ES256 requires"))
            }
            return .success(
                VerifiedChain(
                    signingKey: signingKey,
                    validFrom: certificates.map(\.notValidBefore).max() ?? leaf.notValidBefore,
                    validUntil: certificates.map(\.notValidAfter).min() ?? leaf.notValidAfter,
                    rootIndex: rootIndex,
                    revocationCheckExpiry: online.map { now.addingTimeInterval($0.cacheLifetime) }
                ))
        }
    }
}
