import AppStoreModels
import Crypto
import Foundation
import SwiftASN1
import X509

/// Verifies legacy app receipts (PKCS#7 / CMS SignedData with an ASN.1 payload) offline, the
/// way Apple's `verifyReceipt` does, and decodes them.
///
/// Checks, in order: the input is a PKCS#7 `signedData` (DER, or Xcode's indefinite-length
/// BER); exactly one signer, found among the embedded certificates; the RSA PKCS#1 v1.5
/// signature over the payload (SHA-1, SHA-256, SHA-384 or SHA-512, with or without signed
/// attributes); the payload decodes; the signer's chain leads to a configured root **at the
/// receipt's creation date** with Apple's marker extensions; the device hash when a device
/// identifier is given; the receipt's own expiration date; and, if configured, the environment.
///
/// The Apple Inc. Root Certificate is the default root. Add Xcode's StoreKit test certificate
/// (exported from the `.storekit` configuration) to accept local StoreKit Testing receipts.
public struct ReceiptVerifier: Sendable {
    private let chainValidator: ReceiptChainValidator
    /// Certificates already parsed, by their DER: an app's receipts embed the same few.
    private let certificateCache = BoundedCache<[UInt8], Certificate>(capacity: 64)
    /// Chains already verified, by the DER of the signer and of every embedded certificate, with
    /// the window in which all of the chain's certificates are valid: a receipt created inside
    /// it needs no chain check again (its signature over the payload is still checked).
    private let chainCache = BoundedCache<ChainKey, DateInterval>(capacity: 64)

    struct ChainKey: Hashable, Sendable {
        var signer: [UInt8]
        var embedded: [[UInt8]]
    }
    /// When set, receipts from another environment get 21007 (sandbox receipt, production
    /// expected) or 21008 (production receipt, sandbox expected), as the two Apple endpoints answer.
    public var expectedEnvironment: AppStoreEnvironment?

    /// Creates a verifier trusting `rootCertificates` (DER X.509).
    ///
    /// - Throws: ``ReceiptVerifierError`` if a root is unreadable or none is given.
    public init(
        rootCertificates: [Data] = [AppleRootCertificates.appleIncRoot],
        expectedEnvironment: AppStoreEnvironment? = nil
    ) throws(ReceiptVerifierError) {
        guard !rootCertificates.isEmpty else {
            throw ReceiptVerifierError(code: .noRootCertificates, message: "at least one root certificate is required")
        }
        var roots: [Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            do {
                roots.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw ReceiptVerifierError(
                    code: .invalidRootCertificate, message: "root certificate \(index) is not DER X.509: \(error)")
            }
        }
        chainValidator = ReceiptChainValidator(roots: roots)
        self.expectedEnvironment = expectedEnvironment
    }

    /// Verifies and decodes `receipt`, given as binary DER/BER or as base64 text.
    ///
    /// - Parameters:
    ///   - deviceIdentifier: the device's `identifierForVendor` (iOS) or its equivalent; when
    ///     given, the receipt's SHA-1 device hash must match it.
    ///   - now: the current time, used only for the receipt's own expiration date (attribute 21).
    public func verify(_ receipt: Data, deviceIdentifier: UUID? = nil, now: Date) -> ReceiptValidationResult {
        switch ReceiptInput.classify(receipt) {
        case .pkcs7(let bytes):
            return verify(der: bytes, deviceIdentifier: deviceIdentifier, now: now)
        case .transactionReceipt:
            return .invalid(
                status: .malformedReceipt,
                reason: "an iOS 6 transaction receipt, not an app receipt; only Apple's verifyReceipt reads these")
        case .json:
            return .invalid(status: .malformedReceipt, reason: "JSON, not a receipt")
        case .empty:
            return .invalid(status: .malformedReceipt, reason: "empty receipt data")
        case .tooLarge:
            return .invalid(status: .malformedReceipt, reason: "receipt data larger than \(AppReceipt.maximumSize) bytes")
        case .unrecognized(let what):
            return .invalid(status: .malformedReceipt, reason: "not a receipt: \(what)")
        }
    }

    /// Verifies a base64-encoded receipt (the `receipt-data` of a `verifyReceipt` request).
    public func verify(base64Encoded receipt: String, deviceIdentifier: UUID? = nil, now: Date) -> ReceiptValidationResult {
        verify(Data(receipt.utf8), deviceIdentifier: deviceIdentifier, now: now)
    }

    private func verify(der bytes: [UInt8], deviceIdentifier: UUID?, now: Date) -> ReceiptValidationResult {
        let container: ReceiptSignedData
        let receipt: AppReceipt
        do {
            container = try ReceiptSignedData(berEncoded: bytes) { [certificateCache] der in
                if let known = certificateCache.value(for: der) { return known }
                let parsed = try Certificate(derEncoded: der)
                certificateCache.insert(parsed, for: der)
                return parsed
            }
            guard container.contentType == ReceiptObjectIdentifiers.data else {
                return .invalid(status: .malformedReceipt, reason: "the signed content is not PKCS#7 data")
            }
            guard container.signerInfos.count == 1, let signerInfo = container.signerInfos.first else {
                return .invalid(status: .notAuthenticated, reason: "expected exactly one signer, found \(container.signerInfos.count)")
            }
            guard let signer = Self.signerCertificate(signerInfo, in: container.certificates) else {
                return .invalid(status: .notAuthenticated, reason: "the signing certificate is not in the receipt")
            }
            if let failure = ReceiptSignatureCheck.failure(signerInfo, signer: signer, container: container) {
                return .invalid(status: .notAuthenticated, reason: failure)
            }
            receipt = try AppReceipt(payload: container.content)
            if let failure = chainFailure(signer: signer, container: container, at: receipt.receiptCreationDate) {
                return .invalid(status: .notAuthenticated, reason: failure)
            }
        } catch {
            return .invalid(status: .malformedReceipt, reason: "malformed receipt: \(error)")
        }
        return policyResult(receipt, deviceIdentifier: deviceIdentifier, now: now)
    }

    /// The chain's check at `time`, from the cache when this exact set of certificates was
    /// verified before and `time` falls where all of that chain's certificates are valid.
    private func chainFailure(signer: Certificate, container: ReceiptSignedData, at time: Date) -> String? {
        let key = container.certificates.firstIndex(of: signer).map {
            ChainKey(signer: container.certificateEncodings[$0], embedded: container.certificateEncodings)
        }
        if let key, let window = chainCache.value(for: key), window.contains(time) { return nil }
        switch chainValidator.check(signer: signer, embedded: container.certificates, at: time) {
        case .failure(let refusal):
            return refusal.reason
        case .success(let chain):
            if let key, let start = chain.map(\.notValidBefore).max(), let end = chain.map(\.notValidAfter).min(), start <= end {
                chainCache.insert(DateInterval(start: start, end: end), for: key)
            }
            return nil
        }
    }

    private func policyResult(_ receipt: AppReceipt, deviceIdentifier: UUID?, now: Date) -> ReceiptValidationResult {
        if let deviceIdentifier, !receipt.matchesDevice(deviceIdentifier) {
            return .invalid(status: .notAuthenticated, reason: "the receipt was not issued to this device (hash mismatch)")
        }
        if let expirationDate = receipt.expirationDate, expirationDate < now {
            return .invalid(status: .accountNotFound, reason: "the receipt expired (attribute 21) and is no longer authorized")
        }
        if let expectedEnvironment, receipt.environment != expectedEnvironment {
            switch (receipt.environment, expectedEnvironment) {
            case (.sandbox, .production):
                return .invalid(status: .sandboxReceiptSentToProduction, reason: "a sandbox receipt, production expected")
            case (.production, .sandbox):
                return .invalid(status: .productionReceiptSentToSandbox, reason: "a production receipt, sandbox expected")
            default:
                return .invalid(
                    status: .notAuthenticated,
                    reason: "a \(receipt.environment) receipt, \(expectedEnvironment) expected")
            }
        }
        return .valid(receipt)
    }

    private static func signerCertificate(_ signerInfo: ReceiptSignerInfo, in certificates: [Certificate]) -> Certificate? {
        if let issuer = signerInfo.issuer, let serial = signerInfo.serialNumber {
            return certificates.first { $0.issuer == issuer && $0.serialNumber == serial }
        }
        if let keyIdentifier = signerInfo.subjectKeyIdentifier {
            return certificates.first {
                (try? $0.extensions.subjectKeyIdentifier)??.keyIdentifier.elementsEqual(keyIdentifier) == true
            }
        }
        return nil
    }
}
