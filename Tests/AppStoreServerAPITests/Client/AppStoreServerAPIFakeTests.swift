import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("The fake App Store Server API")
struct AppStoreServerAPIFakeTests {
    @Test("a call without a handler fails loudly, naming the endpoint")
    func unexpectedCall() async {
        let fake = AppStoreServerAPIFake()
        let error = await #expect(throws: AppStoreServerAPIFake.UnexpectedCall.self) {
            _ = try await fake.getAllSubscriptionStatuses(transactionId: "1")
        }
        #expect(error?.endpoint == "getAllSubscriptionStatuses")
        await #expect(throws: AppStoreServerAPIFake.UnexpectedCall.self) { try await fake.deleteRealtimeURL() }
    }

    @Test("handlers answer, and the pagination helpers work over any conformer")
    func handlersAndPages() async throws {
        var fake = AppStoreServerAPIFake()
        fake.getTransactionHistoryHandler = { transactionId, revision, filter, version in
            #expect(transactionId == "7")
            #expect(version == .v2)
            #expect(filter.revoked == false)
            switch revision {
            case nil: return HistoryResponse(revision: "r1", hasMore: true, signedTransactions: ["a"])
            case "r1": return HistoryResponse(revision: "r2", hasMore: false, signedTransactions: ["b"])
            default: throw AppStoreServerAPIFake.UnexpectedCall(endpoint: "page \(revision ?? "")")
            }
        }
        var signed: [String] = []
        for try await page in fake.transactionHistoryPages(transactionId: "7", filter: TransactionHistoryRequest(revoked: false)) {
            signed += page.signedTransactions ?? []
        }
        #expect(signed == ["a", "b"])
    }
}
