import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("Pagination helpers")
struct PaginationTests {
    @Test("transaction history pages follow each revision with the same filter until hasMore is false")
    func transactionHistory() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect(
            "GET", "/inApps/v2/history/42", query: "productId=p1&sort=DESCENDING",
            respond: .json(200, #"{"revision":"r1","hasMore":true,"signedTransactions":["a","b"]}"#))
        await harness.transport.expect(
            "GET", "/inApps/v2/history/42", query: "revision=r1&productId=p1&sort=DESCENDING",
            respond: .json(200, #"{"revision":"r2","hasMore":true,"signedTransactions":["c"]}"#))
        await harness.transport.expect(
            "GET", "/inApps/v2/history/42", query: "revision=r2&productId=p1&sort=DESCENDING",
            respond: .json(200, #"{"revision":"r3","hasMore":false,"signedTransactions":["d"]}"#))
        var transactions: [String] = []
        let filter = TransactionHistoryRequest(productIds: ["p1"], sort: .descending)
        for try await page in harness.client.transactionHistoryPages(transactionId: "42", filter: filter) {
            transactions += page.signedTransactions ?? []
        }
        #expect(transactions == ["a", "b", "c", "d"])
        #expect(await harness.transport.unmetExpectations.isEmpty)
        #expect(await harness.transport.failures.isEmpty)
    }

    @Test("refund history pages resume from a saved revision")
    func refundHistoryResumes() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect(
            "GET", "/inApps/v2/refund/lookup/42", query: "revision=saved",
            respond: .json(200, #"{"revision":"next","hasMore":true,"signedTransactions":["x"]}"#))
        await harness.transport.expect(
            "GET", "/inApps/v2/refund/lookup/42", query: "revision=next",
            respond: .json(200, #"{"revision":"end","hasMore":false,"signedTransactions":[]}"#))
        var pages = 0
        for try await _ in harness.client.refundHistoryPages(transactionId: "42", startingAt: "saved") { pages += 1 }
        #expect(pages == 2)
    }

    @Test("notification history pages carry the token in the query and the filter in every body")
    func notificationHistory() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect(
            "POST", "/inApps/v1/notifications/history",
            respond: .json(200, #"{"paginationToken":"t1","hasMore":true,"notificationHistory":[{"signedPayload":"p1"}]}"#))
        await harness.transport.expect(
            "POST", "/inApps/v1/notifications/history", query: "paginationToken=t1",
            respond: .json(200, #"{"paginationToken":"t2","hasMore":false,"notificationHistory":[{"signedPayload":"p2"}]}"#))
        let request = NotificationHistoryRequest(
            startDate: Date(appStoreMilliseconds: Int64(1_000)), endDate: Date(appStoreMilliseconds: Int64(2_000)), onlyFailures: true)
        var payloads: [String] = []
        for try await page in harness.client.notificationHistoryPages(request: request) {
            payloads += (page.notificationHistory ?? []).compactMap(\.signedPayload)
        }
        #expect(payloads == ["p1", "p2"])
        let bodies = await harness.transport.requests.compactMap(\.body)
        #expect(bodies.count == 2)
        #expect(bodies[0] == bodies[1])
        #expect(try jsonObject(bodies[0]) == jsonObject(Data(#"{"startDate":1000,"endDate":2000,"onlyFailures":true}"#.utf8)))
    }

    @Test("a page that repeats its own token ends iteration with an error instead of looping")
    func stalledToken() async throws {
        let pages = APIPages<Int> { token in (1, token ?? "same") }
        var seen = 0
        await #expect(throws: AppStoreServerAPIError.self) {
            for try await _ in pages { seen += 1 }
        }
        #expect(seen == 1)
    }

    @Test("an error on a later page surfaces from the iteration")
    func errorOnLaterPage() async throws {
        let harness = try ClientHarness(retryPolicy: .none)
        await harness.transport.expect("GET", "/inApps/v2/refund/lookup/42", respond: .json(200, #"{"revision":"r1","hasMore":true}"#))
        await harness.transport.expect("GET", "/inApps/v2/refund/lookup/42", respond: .json(400, #"{"errorCode":4000014,"errorMessage":"bad"}"#))
        var pages = 0
        let error = await #expect(throws: AppStoreServerAPIError.self) {
            for try await _ in harness.client.refundHistoryPages(transactionId: "42") { pages += 1 }
        }
        #expect(error?.apiErrorCode == .invalidPaginationToken)
        #expect(pages == 1)
    }
}
