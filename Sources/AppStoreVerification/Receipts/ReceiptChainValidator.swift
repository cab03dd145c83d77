import Foundation
import SwiftASN1
import X509

/// Validates the certificate chain of a receipt signer against the configured roots, at a
/// given time (the receipt's creation date: most embedded certificates have expired since).
///
/// Two shapes are accepted, the only two Apple has shipped:
/// * the signer **is** a configured root (Xcode's self-signed StoreKit certificate);
/// * leaf → intermediate → configured root, where the leaf carries Apple's receipt-signer marker
///   (1.2.840.113635.100.6.11.1) and the intermediate is a CA carrying the WWDR marker
///   (1.2.840.113635.100.6.2.1). The intermediate comes from the receipt; the root never does.
struct ReceiptChainValidator: Sendable {
    let roots: [Certificate]

    /// `nil` when the chain is valid at `time`, otherwise why it is not.
    ///
    /// Every certificate the receipt embeds must belong to the chain (or be a byte-identical
    /// copy of a configured root, as Apple embeds the Apple Inc. Root): a receipt carrying
    /// anything else, such as a damaged copy of the root, was not produced by Apple as is.
    func failure(signer: Certificate, embedded: [Certificate], at time: Date) -> String? {
        if case .failure(let failure) = check(signer: signer, embedded: embedded, at: time) { return failure.reason }
        return nil
    }

    /// Why a chain is refused.
    struct Refusal: Error, Sendable {
        var reason: String
    }

    /// The chain valid at `time` — the signer, then the intermediate and the root when the
    /// signer is not itself a root — or why there is none.
    func check(signer: Certificate, embedded: [Certificate], at time: Date) -> Result<[Certificate], Refusal> {
        func refuse(_ reason: String) -> Result<[Certificate], Refusal> { .failure(Refusal(reason: reason)) }
        if roots.contains(signer) {
            if let failure = Self.validityFailure(signer, at: time, role: "signing root")
                ?? Self.strayFailure(embedded, chain: [signer], roots: roots)
            {
                return refuse(failure)
            }
            return .success([signer])
        }
        if let failure = Self.validityFailure(signer, at: time, role: "leaf") { return refuse(failure) }
        if let failure = Self.leafFailure(signer) { return refuse(failure) }

        let issuers = embedded.filter { $0 != signer && $0.subject == signer.issuer }
        guard !issuers.isEmpty else { return refuse("no certificate in the receipt issued the signing certificate") }
        var lastFailure = "the signing certificate's signature does not verify with its issuer's key"
        for intermediate in issuers where intermediate.publicKey.isValidSignature(signer.signature, for: signer) {
            if let failure = Self.validityFailure(intermediate, at: time, role: "intermediate")
                ?? Self.intermediateFailure(intermediate)
            {
                lastFailure = failure
                continue
            }
            let anchors = roots.filter { $0.subject == intermediate.issuer }
            guard !anchors.isEmpty else {
                lastFailure = "the chain does not lead to a configured root certificate"
                continue
            }
            for root in anchors where root.publicKey.isValidSignature(intermediate.signature, for: intermediate) {
                if let failure = Self.validityFailure(root, at: time, role: "root") {
                    lastFailure = failure
                    continue
                }
                if let failure = Self.strayFailure(embedded, chain: [signer, intermediate], roots: roots) { return refuse(failure) }
                return .success([signer, intermediate, root])
            }
            lastFailure = "the intermediate's signature does not verify with a configured root"
        }
        return refuse(lastFailure)
    }

    private static func strayFailure(_ embedded: [Certificate], chain: [Certificate], roots: [Certificate]) -> String? {
        guard embedded.allSatisfy({ chain.contains($0) || roots.contains($0) }) else {
            return "the receipt carries a certificate outside its chain"
        }
        return nil
    }

    private static func validityFailure(_ certificate: Certificate, at time: Date, role: String) -> String? {
        guard certificate.notValidBefore <= time, time <= certificate.notValidAfter else {
            return "the \(role) certificate was not valid at the receipt's creation date"
        }
        return nil
    }

    private static func leafFailure(_ leaf: Certificate) -> String? {
        guard leaf.extensions[oid: AppleCertificateExtensions.receiptSigner] != nil else {
            return "the signing certificate lacks Apple's receipt-signer marker"
        }
        if let usage = try? leaf.extensions.keyUsage, !usage.digitalSignature {
            return "the signing certificate may not sign data"
        }
        return nil
    }

    private static func intermediateFailure(_ intermediate: Certificate) -> String? {
        guard intermediate.extensions[oid: AppleCertificateExtensions.wwdrIntermediate] != nil else {
            return "the intermediate certificate lacks Apple's WWDR marker"
        }
        guard case .some(.isCertificateAuthority) = try? intermediate.extensions.basicConstraints else {
            return "the intermediate certificate is not a certificate authority"
        }
        if let usage = try? intermediate.extensions.keyUsage, !usage.keyCertSign {
            return "the intermediate certificate may not sign certificates"
        }
        return nil
    }
}
