import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

@Suite("SignedDataVerifier with the test certificate authority")
struct SignedDataVerifierTests {
    static let now = ForgedInputTable.now

    static func verifier(for ca: TestCertificateAuthority, capacity: Int = 64) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [ca.rootCertificateDER], bundleId: "com.example.storekeeper", appAppleId: 1234,
            environment: .sandbox, options: .init(chainCacheCapacity: capacity)
        )
    }

    static func signTransaction(_ ca: TestCertificateAuthority, signedDate: Int64 = ForgedInputTable.signedDate) throws -> String {
        try ca.sign(jsonPayload: Data(ForgedInputTable.transaction(signedDate: signedDate).utf8))
    }

    @Test("a chain verified once is cached, yet each use re-checks the validity dates")
    func cachedChainStillChecksDates() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        #expect(verifier.cachedChainCount == 0)
        #expect(await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca), now: Self.now).isValid)
        #expect(verifier.cachedChainCount == 1)
        #expect(await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca), now: Self.now).isValid)
        #expect(verifier.cachedChainCount == 1)

        let afterExpiry = await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca, signedDate: 1_900_000_000_000), now: Self.now)
        #expect(afterExpiry.failure?.reason == .verificationFailure)
        let beforeIssue = await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca, signedDate: 1_600_000_000_000), now: Self.now)
        #expect(beforeIssue.failure?.reason == .verificationFailure)
        #expect(await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca), now: Self.now).isValid)
        #expect(verifier.cachedChainCount == 1)
    }

    @Test("a cached chain does not excuse a bad signature")
    func cachedChainStillChecksSignature() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        #expect(await verifier.verifyAndDecodeTransaction(try Self.signTransaction(ca), now: Self.now).isValid)
        let tampered = try ca.sign(
            jsonPayload: Data(ForgedInputTable.transaction().utf8),
            forgery: JWSForgery(tamperedPayload: Data(ForgedInputTable.transaction(signedDate: 1_748_736_000_001).utf8))
        )
        #expect(await verifier.verifyAndDecodeTransaction(tampered, now: Self.now).failure?.reason == .verificationFailure)
    }

    @Test("the cache keeps at most its capacity, and evicted chains still verify")
    func cacheIsBounded() async throws {
        var authorities: [TestCertificateAuthority] = []
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        for _ in 0..<4 {
            authorities.append(try ca.reissuingLeaf(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter))
        }
        let verifier = try Self.verifier(for: ca, capacity: 2)
        for authority in authorities + authorities {
            #expect(await verifier.verifyAndDecodeTransaction(try Self.signTransaction(authority), now: Self.now).isValid)
            #expect(verifier.cachedChainCount <= 2)
        }
    }

    @Test("concurrent verifications share one verifier safely")
    func concurrentVerification() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        let good = try Self.signTransaction(ca)
        let expired = try Self.signTransaction(ca, signedDate: 1_900_000_000_000)
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let jws = index.isMultiple(of: 2) ? good : expired
                    return (index.isMultiple(of: 2), await verifier.verifyAndDecodeTransaction(jws, now: Self.now).isValid)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0.0 == $0.1 })
    }

    @Test("a notification's nested transaction and renewal info are verified and decoded")
    func nestedDataVerified() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        let transaction = try Self.signTransaction(ca)
        let renewal = try ca.sign(jsonPayload: Data(ForgedInputTable.renewal().utf8))
        let notification = try ca.sign(
            jsonPayload: Data(
                ForgedInputTable.notification(
                    #""data":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Sandbox","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}"#
                ).utf8))
        let verified = try #require(await verifier.verifyAndDecodeNotificationWithNestedData(notification, now: Self.now).payload)
        #expect(verified.notification.notificationType == .didRenew)
        #expect(verified.transaction?.transactionId == "2000000123")
        #expect(verified.renewalInfo?.autoRenewProductId == nil)
        #expect(verified.renewalInfo?.productId == "com.example.storekeeper.monthly")
    }

    @Test("a forged nested transaction makes the whole notification invalid")
    func forgedNestedDataRefused() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let foreign = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        let otherBundle = try ca.sign(jsonPayload: Data(ForgedInputTable.transaction(bundleId: "com.example.other").utf8))
        let forged = try Self.signTransaction(foreign)
        for (transaction, reason) in [(otherBundle, VerificationFailure.Reason.invalidAppIdentifier), (forged, .verificationFailure)] {
            let notification = try ca.sign(
                jsonPayload: Data(
                    ForgedInputTable.notification(
                        #""data":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Sandbox","signedTransactionInfo":"\#(transaction)"}"#
                    ).utf8))
            let result = await verifier.verifyAndDecodeNotificationWithNestedData(notification, now: Self.now)
            #expect(result.failure?.reason == reason)
            #expect(result.failure?.message.hasPrefix("data.signedTransactionInfo") == true)
            #expect(await verifier.verifyAndDecodeNotification(notification, now: Self.now).isValid)
        }
    }

    @Test("without signedDate the chain is checked at the injected now")
    func missingSignedDateUsesNow() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let verifier = try Self.verifier(for: ca)
        let jws = try ca.sign(jsonPayload: Data(#"{"bundleId":"com.example.storekeeper","environment":"Sandbox"}"#.utf8))
        #expect(await verifier.verifyAndDecodeTransaction(jws, now: Self.now).isValid)
        #expect(
            await verifier.verifyAndDecodeTransaction(jws, now: Date(timeIntervalSince1970: 1_950_000_000)).failure?.reason == .verificationFailure)
    }
}
