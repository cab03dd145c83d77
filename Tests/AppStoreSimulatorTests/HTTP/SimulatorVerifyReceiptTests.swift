import AppStoreModels
import AppStoreServerAPI
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

@testable import AppStoreSimulator

@Suite("Simulated App Store: verifyReceipt over loopback")
struct SimulatorVerifyReceiptTests {
    func client(_ url: URL, first: AppStoreEnvironment = .production) -> VerifyReceiptClient {
        VerifyReceiptClient(
            configuration: .init(
                productionURL: url.appendingPathComponent("verifyReceipt"),
                sandboxURL: url.appendingPathComponent("sandbox/verifyReceipt"),
                firstEnvironment: first, retryPolicy: RetryPolicy(maximumAttempts: 1)),
            transport: SimulatorHTTPFixture.loopback)
    }

    @Test func aValidReceiptIsAnsweredWithTheAccountsTransactionsAndRenewals() async throws {
        let fixture = try SimulatorHTTPFixture()
        let receipt = try fixture.signer.signReceipt(customerId: "alice", store: fixture.store, at: fixture.clock.now)
        try await fixture.withServer { url, _ in
            let verify = client(url)
            let full = try await verify.verify(
                VerifyReceiptRequest(
                    receiptData: receipt.base64EncodedString(), password: SimulatorHTTPFixture.sharedSecret))
            #expect(full.response.status == .valid)
            #expect(full.route == [.production])
            #expect(full.response.receipt?.bundleId == SimulatorHTTPFixture.bundleId)
            #expect(full.response.receipt?.inApp?.count == 27)
            #expect(full.response.latestReceiptInfo?.count == 27)
            #expect(full.response.latestReceiptInfo?.first?.transactionId == SimulatorHTTPFixture.weeklyLatest)
            #expect(full.response.latestReceiptInfo?.first { $0.transactionId == SimulatorHTTPFixture.refundedCoins }?.cancellationDate != nil)
            #expect(full.response.pendingRenewalInfo?.map(\.originalTransactionId) == [SimulatorHTTPFixture.weeklyOriginal])
            #expect(full.response.pendingRenewalInfo?.first?.autoRenewStatus == true)
            let latest = try #require(full.response.latestReceipt)
            let reverified = try ReceiptVerifier(rootCertificates: [fixture.keys.receiptAuthority.rootCertificateDER])
                .verify(base64Encoded: latest, now: fixture.clock.now)
            #expect(reverified.receipt?.inAppPurchases.count == 27)

            let latestOnly = try await verify.verify(
                VerifyReceiptRequest(
                    receiptData: receipt.base64EncodedString(), password: SimulatorHTTPFixture.sharedSecret, excludeOldTransactions: true))
            #expect(
                Set(latestOnly.response.latestReceiptInfo?.compactMap(\.transactionId) ?? [])
                    == [SimulatorHTTPFixture.weeklyLatest, SimulatorHTTPFixture.refundedCoins, SimulatorHTTPFixture.keptCoins])

            let withoutSecret = try await verify.verify(VerifyReceiptRequest(receiptData: receipt.base64EncodedString()))
            #expect(withoutSecret.response.status == .valid)
            #expect(withoutSecret.response.latestReceiptInfo == nil)
            let wrongSecret = try await verify.verify(VerifyReceiptRequest(receiptData: receipt.base64EncodedString(), password: "wrong"))
            #expect(wrongSecret.response.status == .sharedSecretMismatch)
        }
    }

    @Test func malformedAndForeignReceiptsGetApplesStatuses() async throws {
        let fixture = try SimulatorHTTPFixture()
        let stranger = try ReceiptSigningAuthority.generateSelfSigned(
            validFrom: SimulatorHTTPFixture.start.addingTimeInterval(-86_400), validUntil: SimulatorHTTPFixture.start.addingTimeInterval(86_400))
        let forged = try SimulatorSigner(certificateAuthority: fixture.keys.certificateAuthority, receiptAuthority: stranger)
            .signReceipt(customerId: "alice", store: fixture.store, at: fixture.clock.now)
        try await fixture.withServer { url, _ in
            let verify = client(url)
            let garbage = try await verify.verify(VerifyReceiptRequest(receiptData: Data("not a receipt".utf8).base64EncodedString()))
            #expect(garbage.response.status == .malformedReceipt)
            let foreign = try await verify.verify(VerifyReceiptRequest(receiptData: forged.base64EncodedString()))
            #expect(foreign.response.status == .notAuthenticated)
        }
    }

    @Test func aSandboxReceiptSentToProductionGets21007AndTheClientFollowsToSandbox() async throws {
        let fixture = try SimulatorHTTPFixture(environment: .sandbox)
        let receipt = try fixture.signer.signReceipt(customerId: "bob", store: fixture.store, at: fixture.clock.now)
        try await fixture.withServer { url, _ in
            let result = try await client(url).verify(
                VerifyReceiptRequest(receiptData: receipt.base64EncodedString(), password: SimulatorHTTPFixture.sharedSecret))
            #expect(result.route == [.production, .sandbox])
            #expect(result.response.status == .valid)
            #expect(result.response.environment == .sandbox)
            #expect(result.response.latestReceiptInfo?.count == 3)
            #expect(result.response.pendingRenewalInfo?.first?.expirationIntent == .customerCancelled)
        }
    }

    @Test func aProductionReceiptSentToSandboxGets21008AndTheClientFollowsToProduction() async throws {
        let fixture = try SimulatorHTTPFixture()
        let receipt = try fixture.signer.signReceipt(customerId: "bob", store: fixture.store, at: fixture.clock.now)
        try await fixture.withServer { url, _ in
            let result = try await client(url, first: .sandbox).verify(VerifyReceiptRequest(receiptData: receipt.base64EncodedString()))
            #expect(result.route == [.sandbox, .production])
            #expect(result.response.status == .valid)
            #expect(result.response.environment == .production)
        }
    }
}
