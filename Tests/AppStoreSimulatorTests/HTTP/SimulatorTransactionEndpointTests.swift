import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Testing

@testable import AppStoreSimulator

@Suite("Simulated App Store: transaction endpoints over loopback")
struct SimulatorTransactionEndpointTests {
    @Test func transactionInfoIsSignedAtTheSimulationClockAndVerifies() async throws {
        let fixture = try SimulatorHTTPFixture()
        fixture.clock.advance(by: 3600)
        try await fixture.withServer { url, _ in
            let response = try await fixture.client(baseURL: url).getTransactionInfo(transactionId: SimulatorHTTPFixture.weeklyLatest)
            let signed = try #require(response.signedTransactionInfo)
            let transaction = try #require(await fixture.verifier().verifyAndDecodeTransaction(signed, now: fixture.clock.now).payload)
            #expect(transaction.transactionId == SimulatorHTTPFixture.weeklyLatest)
            #expect(transaction.originalTransactionId == SimulatorHTTPFixture.weeklyOriginal)
            #expect(transaction.signedDate == SimulatorHTTPFixture.start.addingTimeInterval(3600))
        }
    }

    @Test func unknownAndMalformedTransactionIdsGetApplesErrorCodes() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let unknown = await #expect(throws: AppStoreServerAPIError.self) { try await client.getTransactionInfo(transactionId: "999999") }
            #expect(unknown?.httpStatus == 404)
            #expect(unknown?.apiErrorCode == .transactionIdNotFound)
            let malformed = await #expect(throws: AppStoreServerAPIError.self) { try await client.getTransactionInfo(transactionId: "abc") }
            #expect(malformed?.httpStatus == 400)
            #expect(malformed?.apiErrorCode == .invalidTransactionId)
            let appTransactionId = fixture.store.appTransactionId(ofCustomer: "alice")
            let appTransaction = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.getTransactionInfo(transactionId: appTransactionId)
            }
            #expect(appTransaction?.apiErrorCode == .appTransactionIdNotSupported)
        }
    }

    @Test func transactionHistoryWalksEveryPageOfTheAccount() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let verifier = try fixture.verifier()
            var ids: [String] = []
            var revision: String?
            var pages = 0
            repeat {
                let page = try await client.getTransactionHistory(transactionId: SimulatorHTTPFixture.keptCoins, revision: revision)
                pages += 1
                #expect(page.bundleId == SimulatorHTTPFixture.bundleId)
                #expect(page.appAppleId == SimulatorHTTPFixture.appAppleId)
                #expect((page.signedTransactions ?? []).count <= 20)
                for signed in page.signedTransactions ?? [] {
                    ids.append(try #require(await verifier.verifyAndDecodeTransaction(signed, now: fixture.clock.now).payload?.transactionId))
                }
                revision = page.revision
                if page.hasMore != true { break }
            } while pages < 10
            #expect(pages == 2)
            #expect(ids.count == 27)
            #expect(Set(ids).count == 27)
            #expect(!ids.contains(SimulatorHTTPFixture.lifetimeUnlock))

            // The last revision returns only what changed since.
            let later = try await client.getTransactionHistory(transactionId: SimulatorHTTPFixture.keptCoins, revision: revision)
            #expect(later.signedTransactions?.isEmpty == true)
            #expect(later.hasMore == false)
        }
    }

    @Test func transactionHistoryAppliesTheClientsFilters() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let verifier = try fixture.verifier()
            func ids(_ filter: TransactionHistoryRequest) async throws -> [String] {
                let page = try await client.getTransactionHistory(transactionId: SimulatorHTTPFixture.weeklyOriginal, revision: nil, filter: filter)
                var result: [String] = []
                for signed in page.signedTransactions ?? [] {
                    result.append(try #require(await verifier.verifyAndDecodeTransaction(signed, now: fixture.clock.now).payload?.transactionId))
                }
                return result
            }
            #expect(try await ids(TransactionHistoryRequest(productTypes: [.consumable])) == ["2000002", "2000001"])
            #expect(try await ids(TransactionHistoryRequest(revoked: true)) == [SimulatorHTTPFixture.refundedCoins])
            #expect(try await ids(TransactionHistoryRequest(productIds: ["coins.100"], revoked: false)) == [SimulatorHTTPFixture.keptCoins])
            let recent = try await ids(TransactionHistoryRequest(startDate: SimulatorHTTPFixture.start.addingTimeInterval(-2.5 * 86_400)))
            #expect(Set(recent) == [SimulatorHTTPFixture.weeklyLatest, SimulatorHTTPFixture.keptCoins])
            let newestFirst = try await ids(TransactionHistoryRequest(sort: .descending, subscriptionGroupIdentifiers: ["G1"]))
            #expect(newestFirst.first == SimulatorHTTPFixture.weeklyLatest)
            #expect(newestFirst.count == 20)
            #expect(try await ids(TransactionHistoryRequest(inAppOwnershipType: .familyShared)).isEmpty)
        }
    }

    @Test func refundHistoryListsTheAccountsRevokedTransactions() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let page = try await client.getRefundHistory(transactionId: SimulatorHTTPFixture.weeklyLatest, revision: nil)
            #expect(page.hasMore == false)
            let signed = try #require(page.signedTransactions?.first)
            let refunded = try #require(await fixture.verifier().verifyAndDecodeTransaction(signed, now: fixture.clock.now).payload)
            #expect(refunded.transactionId == SimulatorHTTPFixture.refundedCoins)
            #expect(refunded.revocationReason == .refundedDueToIssue)
            let bob = try await client.getRefundHistory(transactionId: SimulatorHTTPFixture.lifetimeUnlock, revision: nil)
            #expect(bob.signedTransactions?.isEmpty == true)
        }
    }

    @Test func orderLookupAndAppTransactionInfoAnswerFromTheStore() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let order = try await client.lookUpOrderId(orderId: "MKCOINS")
            #expect(order.status == .valid)
            #expect(order.signedTransactions?.count == 2)
            let missing = try await client.lookUpOrderId(orderId: "NOSUCHORDER")
            #expect(missing.status == .invalid)
            #expect(missing.signedTransactions?.isEmpty == true)

            let info = try await client.getAppTransactionInfo(transactionId: SimulatorHTTPFixture.lifetimeUnlock)
            let signed = try #require(info.signedAppTransactionInfo)
            let appTransaction = try #require(await fixture.verifier().verifyAndDecodeAppTransaction(signed, now: fixture.clock.now).payload)
            #expect(appTransaction.appTransactionId == fixture.store.appTransactionId(ofCustomer: "bob"))
            #expect(appTransaction.originalPurchaseDate == SimulatorHTTPFixture.start.addingTimeInterval(-60 * 86_400))
        }
    }

    @Test func appAccountTokenAndConsumptionAnswersChangeTheStore() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            let token = UUID()
            try await client.setAppAccountToken(
                originalTransactionId: SimulatorHTTPFixture.weeklyOriginal, request: UpdateAppAccountTokenRequest(appAccountToken: token.uuidString))
            #expect(fixture.store.transaction(id: SimulatorHTTPFixture.weeklyLatest)?.appAccountToken == token.uuidString.lowercased())
            #expect(fixture.store.subscription(SimulatorHTTPFixture.weeklyOriginal)?.appAccountToken == token.uuidString.lowercased())
            let notOriginal = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.setAppAccountToken(
                    originalTransactionId: SimulatorHTTPFixture.weeklyLatest, request: .init(appAccountToken: token.uuidString))
            }
            #expect(notOriginal?.apiErrorCode == .transactionIdNotOriginalTransactionId)
            let badToken = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.setAppAccountToken(
                    originalTransactionId: SimulatorHTTPFixture.weeklyOriginal, request: .init(appAccountToken: "nope"))
            }
            #expect(badToken?.apiErrorCode == .invalidAppAccountTokenUUID)

            try await client.sendConsumptionInformation(
                transactionId: SimulatorHTTPFixture.keptCoins,
                request: ConsumptionRequest(
                    customerConsented: true, consumptionPercentage: 25_000, deliveryStatus: .delivered, refundPreference: .decline,
                    sampleContentProvided: false))
            try await client.sendConsumptionData(
                transactionId: SimulatorHTTPFixture.keptCoins,
                request: ConsumptionRequestV1(
                    customerConsented: true, consumptionStatus: .fullyConsumed, deliveryStatus: .deliveredAndWorkingProperly))
            let answers = fixture.store.consumptionAnswers(transactionId: SimulatorHTTPFixture.keptCoins)
            #expect(answers.map(\.consumptionPercentage) == [25_000, 100_000])
            let noConsent = await #expect(throws: AppStoreServerAPIError.self) {
                try await client.sendConsumptionInformation(
                    transactionId: SimulatorHTTPFixture.keptCoins,
                    request: ConsumptionRequest(customerConsented: false, deliveryStatus: .delivered, sampleContentProvided: false))
            }
            #expect(noConsent?.apiErrorCode == .invalidCustomerConsented)
        }
    }
}
