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
    /// Chains already verified, by the exact bytes of the certificates the receipt embeds: an
    /// app's receipts carry the same few. A receipt created inside the remembered window needs no
    /// X.509 parsing and no chain check again (its signature over the payload is still checked).
    private let chainCache = BoundedCache<ExactBytesKey, RememberedChain>(capacity: 64)

    /// The embedded certificates of a receipt whose chain verified, parsed, with the signer among
    /// them (and the bytes that named it) and the window in which all of the chain's certificates
    /// (the root included) are valid.
    struct RememberedChain: Sendable {
        var certificates: [Certificate]
        var signerIndex: Int
        var signerIdentifier: [UInt8]
        var window: DateInterval

        /// The signer's index when `signerInfos` is one signer named by the remembered bytes.
        func signerIndex(of signerInfos: [ReceiptSignerInfo]) -> Int? {
            guard signerInfos.count == 1, signerInfos[0].signerIdentifier.elementsEqual(signerIdentifier) else { return nil }
            return signerIndex
        }
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
        let receipt: AppReceipt
        do {
            let container = try ReceiptSignedData(berEncoded: bytes, decodingIssuerNames: false)
            let key = ExactBytesKey(container.certificatesField)
            let remembered = chainCache.value(for: key)
            let knownSigner = remembered?.signerIndex(of: container.signerInfos)
            if knownSigner == nil { try container.decodeIssuerNames() }
            let certificates = try remembered?.certificates ?? Self.certificates(container.certificateEncodings)
            guard container.contentType == ReceiptObjectIdentifiers.data else {
                return .invalid(status: .malformedReceipt, reason: "the signed content is not PKCS#7 data")
            }
            guard container.signerInfos.count == 1, let signerInfo = container.signerInfos.first else {
                return .invalid(status: .notAuthenticated, reason: "expected exactly one signer, found \(container.signerInfos.count)")
            }
            guard let signerIndex = knownSigner ?? Self.signerIndex(signerInfo, in: certificates) else {
                return .invalid(status: .notAuthenticated, reason: "the signing certificate is not in the receipt")
            }
            if let failure = ReceiptSignatureCheck.failure(signerInfo, signer: certificates[signerIndex], container: container) {
                return .invalid(status: .notAuthenticated, reason: failure)
            }
            receipt = try AppReceipt(payload: container.content)
            // A chain verified before is trusted again only at dates where all its certificates are valid.
            let time = receipt.receiptCreationDate
            let remembersChain = remembered.map { $0.signerIndex == signerIndex && $0.window.contains(time) } ?? false
            if !remembersChain,
                let failure = chainFailure(signerInfo, signerIndex: signerIndex, certificates: certificates, key: key, at: time)
            {
                return .invalid(status: .notAuthenticated, reason: failure)
            }
        } catch {
            return .invalid(status: .malformedReceipt, reason: "malformed receipt: \(error)")
        }
        return policyResult(receipt, deviceIdentifier: deviceIdentifier, now: now)
    }

    /// The embedded certificates parsed as X.509.
    private static func certificates(_ encodings: [ArraySlice<UInt8>]) throws(ReceiptDecodingFailure) -> [Certificate] {
        do {
            return try encodings.map { try Certificate(derEncoded: $0) }
        } catch {
            throw ReceiptDecodingFailure("SignedData.certificates: unreadable certificate")
        }
    }

    /// The full check of the chain at `time`; a chain that passes is remembered under `key`.
    private func chainFailure(
        _ signerInfo: ReceiptSignerInfo, signerIndex: Int, certificates: [Certificate], key: ExactBytesKey, at time: Date
    ) -> String? {
        switch chainValidator.check(signer: certificates[signerIndex], embedded: certificates, at: time) {
        case .failure(let refusal):
            return refusal.reason
        case .success(let chain):
            if let start = chain.map(\.notValidBefore).max(), let end = chain.map(\.notValidAfter).min(), start <= end {
                let remembered = RememberedChain(
                    certificates: certificates, signerIndex: signerIndex, signerIdentifier: Array(signerInfo.signerIdentifier),
                    window: DateInterval(start: start, end: end))
                chainCache.insert(remembered, for: key.compacted())
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

    private static func signerIndex(_ signerInfo: ReceiptSignerInfo, in certificates: [Certificate]) -> Int? {
        if let issuer = try? signerInfo.issuer(), let serial = signerInfo.serialNumber {
            return certificates.firstIndex { $0.serialNumber == serial && $0.issuer == issuer }
        }
        if let keyIdentifier = signerInfo.subjectKeyIdentifier {
            return certificates.firstIndex {
                (try? $0.extensions.subjectKeyIdentifier)??.keyIdentifier.elementsEqual(keyIdentifier) == true
            }
        }
        return nil
    }
}
