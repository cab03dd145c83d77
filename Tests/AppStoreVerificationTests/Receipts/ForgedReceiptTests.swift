import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

/// Receipts signed by the test authority verify; forged ones are rejected with Apple's status codes.
@Suite struct ForgedReceiptTests {
    private func authority(_ authority: ReceiptSigningAuthority?) throws -> ReceiptSigningAuthority {
        try #require(authority, "RSA key generation failed")
    }

    private func verifier(trusting authority: ReceiptSigningAuthority?) throws -> ReceiptVerifier {
        try ReceiptVerifier(rootCertificates: [try self.authority(authority).rootCertificateDER])
    }

    static let signingOptions: [ReceiptSigningOptions] = [
        .init(),
        .init(digest: .sha1),
        .init(digest: .sha256, signatureAlgorithm: .withDigest),
        .init(digest: .sha1, signatureAlgorithm: .withDigest, signedAttributes: true),
        .init(signedAttributes: true, embedRoot: false),
    ]

    @Test(arguments: signingOptions)
    func receiptSignedByTrustedAuthorityVerifiesAndDecodesEveryField(options: ReceiptSigningOptions) throws {
        let original = try TestReceiptAuthorities.receipt()
        let signed = try authority(TestReceiptAuthorities.appStore).sign(original, options: options)
        let result = try verifier(trusting: TestReceiptAuthorities.appStore)
            .verify(signed, deviceIdentifier: TestReceiptAuthorities.device, now: TestReceiptAuthorities.now)
        var decoded = try #require(result.receipt, "\(result.reason ?? "")")
        #expect(decoded.attributes.count > 10)
        decoded.attributes = []
        // DER sorts SET OF members, so in-app records come back in encoding order, as in Apple's receipts.
        decoded.inAppPurchases = decoded.inAppPurchases
            .map {
                var purchase = $0
                purchase.attributes = []
                return purchase
            }
            .sorted { ($0.transactionId ?? "") < ($1.transactionId ?? "") }
        #expect(decoded == original)
    }

    @Test func sha1CertificateChainLikeTheOldAppleChainVerifies() throws {
        let signed = try authority(TestReceiptAuthorities.legacySHA1).sign(try TestReceiptAuthorities.receipt(), options: .init(digest: .sha1))
        let result = try verifier(trusting: TestReceiptAuthorities.legacySHA1).verify(signed, now: TestReceiptAuthorities.now)
        #expect(result.status == .valid)
    }

    @Test func receiptFromAnotherAuthorityIsNotAuthenticated() throws {
        let signed = try authority(TestReceiptAuthorities.other).sign(try TestReceiptAuthorities.receipt())
        let result = try verifier(trusting: TestReceiptAuthorities.appStore).verify(signed, now: TestReceiptAuthorities.now)
        #expect(result.status == .notAuthenticated)
        #expect(try ReceiptVerifier().verify(signed, now: TestReceiptAuthorities.now).status == .notAuthenticated)
    }

    @Test func appStoreReceiptCheckedAgainstOnlyTheStoreKitCertificateIsNotAuthenticated() throws {
        let verifier = try ReceiptVerifier(rootCertificates: [try ReceiptFixtures.storeKitTestCertificate()])
        for name in ReceiptFixtures.appStoreReceiptNames {
            let result = verifier.verify(try ReceiptFixtures.receipt(name), now: ReceiptFixtures.now)
            #expect(result.status == .notAuthenticated, "\(name): \(result.reason ?? "valid")")
        }
    }

    @Test func xcodeReceiptIsNotAuthenticatedWithOnlyTheAppleRoot() throws {
        let result = try ReceiptVerifier().verify(try ReceiptFixtures.receipt("xcode-storekit-2023-with-transaction"), now: ReceiptFixtures.now)
        #expect(result.status == .notAuthenticated)
    }

    @Test func selfSignedXcodeStyleAuthorityVerifiesOnlyWhenItsCertificateIsTrusted() throws {
        let signed = try authority(TestReceiptAuthorities.xcode).sign(try TestReceiptAuthorities.receipt(type: .xcode))
        #expect(try verifier(trusting: TestReceiptAuthorities.xcode).verify(signed, now: TestReceiptAuthorities.now).status == .valid)
        #expect(try verifier(trusting: TestReceiptAuthorities.appStore).verify(signed, now: TestReceiptAuthorities.now).status == .notAuthenticated)
    }

    @Test func chainIsValidatedAtTheReceiptCreationDate() throws {
        let authority = try authority(TestReceiptAuthorities.appStore)
        let verifier = try verifier(trusting: TestReceiptAuthorities.appStore)
        let afterExpiry = Date(timeIntervalSince1970: 1_900_000_000)
        let late = try authority.sign(try TestReceiptAuthorities.receipt(creationDate: afterExpiry))
        #expect(verifier.verify(late, now: afterExpiry).status == .notAuthenticated)
        let beforeIssue = Date(timeIntervalSince1970: 1_500_000_000)
        let early = try authority.sign(try TestReceiptAuthorities.receipt(creationDate: beforeIssue))
        #expect(verifier.verify(early, now: TestReceiptAuthorities.now).status == .notAuthenticated)
        // A receipt created while the chain was valid stays valid long after the chain expired.
        let inTime = try authority.sign(try TestReceiptAuthorities.receipt())
        #expect(verifier.verify(inTime, now: afterExpiry).status == .valid)
    }

    @Test func aVerifiedChainIsRememberedOnlyForTheDatesItsCertificatesCover() throws {
        let authority = try authority(TestReceiptAuthorities.appStore)
        let verifier = try verifier(trusting: TestReceiptAuthorities.appStore)
        let afterExpiry = Date(timeIntervalSince1970: 1_900_000_000)
        // The chain is verified once (and remembered) by a receipt created in time …
        let inTime = try authority.sign(try TestReceiptAuthorities.receipt())
        #expect(verifier.verify(inTime, now: TestReceiptAuthorities.now).status == .valid)
        #expect(verifier.verify(inTime, now: TestReceiptAuthorities.now).status == .valid)
        // … which does not make the same certificates valid at dates they do not cover.
        let late = try authority.sign(try TestReceiptAuthorities.receipt(creationDate: afterExpiry))
        let lateResult = verifier.verify(late, now: afterExpiry)
        #expect(lateResult.status == .notAuthenticated)
        #expect(lateResult.reason?.contains("not valid at the receipt's creation date") == true)
        let early = try authority.sign(try TestReceiptAuthorities.receipt(creationDate: Date(timeIntervalSince1970: 1_500_000_000)))
        #expect(verifier.verify(early, now: TestReceiptAuthorities.now).status == .notAuthenticated)
        // The signature over the payload is still checked on every receipt: a tampered payload
        // with the remembered certificates is refused.
        var tampered = [UInt8](inTime)
        if let index = tampered.lastIndex(of: UInt8(ascii: "e")) { tampered[index] = UInt8(ascii: "f") }
        #expect(verifier.verify(Data(tampered), now: TestReceiptAuthorities.now).status != .valid)
    }

    @Test func realLegacyReceiptIsValidAfterItsCertificatesExpired() throws {
        let result = try ReceiptVerifier().verify(
            try ReceiptFixtures.receipt("tpinappreceipt-sandbox-legacy-2020"), now: ReceiptFixtures.now)
        #expect(result.status == .valid)
    }

    @Test func deviceHashMismatchIsNotAuthenticated() throws {
        let signed = try authority(TestReceiptAuthorities.appStore).sign(try TestReceiptAuthorities.receipt())
        let verifier = try verifier(trusting: TestReceiptAuthorities.appStore)
        #expect(verifier.verify(signed, deviceIdentifier: TestReceiptAuthorities.device, now: TestReceiptAuthorities.now).status == .valid)
        #expect(verifier.verify(signed, deviceIdentifier: UUID(), now: TestReceiptAuthorities.now).status == .notAuthenticated)
    }

    @Test func expiredVolumePurchaseReceiptIsNoLongerAuthorized() throws {
        let receipt = try TestReceiptAuthorities.receipt(
            type: .productionVPP, expirationDate: TestReceiptAuthorities.creationDate.addingTimeInterval(60))
        let signed = try authority(TestReceiptAuthorities.appStore).sign(receipt)
        let verifier = try verifier(trusting: TestReceiptAuthorities.appStore)
        #expect(verifier.verify(signed, now: TestReceiptAuthorities.creationDate).status == .valid)
        #expect(verifier.verify(signed, now: TestReceiptAuthorities.now).status == .accountNotFound)
    }

    @Test func receiptFromTheOtherEnvironmentGetsTheRetryStatusAppleSends() throws {
        let authority = try authority(TestReceiptAuthorities.appStore)
        let root = try authority.rootCertificateDER
        let production = try ReceiptVerifier(rootCertificates: [root], expectedEnvironment: .production)
        let sandbox = try ReceiptVerifier(rootCertificates: [root], expectedEnvironment: .sandbox)
        let sandboxReceipt = try authority.sign(try TestReceiptAuthorities.receipt(type: .productionSandbox))
        let productionReceipt = try authority.sign(try TestReceiptAuthorities.receipt(type: .production))
        #expect(production.verify(sandboxReceipt, now: TestReceiptAuthorities.now).status == .sandboxReceiptSentToProduction)
        #expect(sandbox.verify(productionReceipt, now: TestReceiptAuthorities.now).status == .productionReceiptSentToSandbox)
        #expect(production.verify(productionReceipt, now: TestReceiptAuthorities.now).status == .valid)
        #expect(sandbox.verify(sandboxReceipt, now: TestReceiptAuthorities.now).status == .valid)
    }

    @Test func validlySignedGarbagePayloadIsMalformed() throws {
        let authority = try authority(TestReceiptAuthorities.appStore)
        let verifier = try verifier(trusting: TestReceiptAuthorities.appStore)
        for payload: [UInt8] in [[], [0x31, 0x00], [0x04, 0x01, 0x00], Array("com.urus.iap.96657290".utf8)] {
            let signed = try authority.sign(payload: payload)
            #expect(verifier.verify(signed, now: TestReceiptAuthorities.now).status == .malformedReceipt)
        }
    }

    @Test func unreadableRootCertificateIsAConfigurationError() {
        #expect(throws: ReceiptVerifierError.self) { try ReceiptVerifier(rootCertificates: [Data([0x30, 0x03, 0x02, 0x01, 0x01])]) }
        #expect(throws: ReceiptVerifierError.self) { try ReceiptVerifier(rootCertificates: []) }
    }
}
