import AppStoreModels
import AppStoreServerAPI
import Crypto
import Foundation
import Testing

@testable import AppStoreSimulator

@Suite("Simulated App Store: tokens and rate limits over loopback")
struct SimulatorAccessEndpointTests {
    @Test func tokensOfUnknownKeysOrOtherAppsAreRefusedWith401() async throws {
        let fixture = try SimulatorHTTPFixture()
        try await fixture.withServer { url, _ in
            let wrongKey = try fixture.client(baseURL: url, key: P256.Signing.PrivateKey())
            let forged = await #expect(throws: AppStoreServerAPIError.self) {
                try await wrongKey.getTransactionInfo(transactionId: SimulatorHTTPFixture.weeklyLatest)
            }
            #expect(forged?.httpStatus == 401)
            #expect(forged?.apiErrorCode == nil)
            let unknownKid = try fixture.client(baseURL: url, keyId: "OTHERKEY")
            let unknown = await #expect(throws: AppStoreServerAPIError.self) {
                try await unknownKid.getTransactionInfo(transactionId: SimulatorHTTPFixture.weeklyLatest)
            }
            #expect(unknown?.httpStatus == 401)
            let otherApp = try fixture.client(baseURL: url, bundleId: "com.example.other")
            let wrongBundle = await #expect(throws: AppStoreServerAPIError.self) {
                try await otherApp.getTransactionInfo(transactionId: SimulatorHTTPFixture.weeklyLatest)
            }
            #expect(wrongBundle?.httpStatus == 401)
        }
    }

    @Test func requestsOverTheHourlyBudgetGet429WithRetryAfter() async throws {
        // Look Up Order ID allows 10 requests per second: 36,000 an hour; 0.0001 of it is 3.
        let fixture = try SimulatorHTTPFixture { $0.rateLimits = SimulatorRateLimits(multiplier: 0.0001) }
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            for _ in 0..<3 { _ = try await client.lookUpOrderId(orderId: "MKCOINS") }
            let limited = await #expect(throws: AppStoreServerAPIError.self) { try await client.lookUpOrderId(orderId: "MKCOINS") }
            #expect(limited?.httpStatus == 429)
            #expect(limited?.apiErrorCode == .rateLimitExceeded)
            let retryAfter = try #require(limited?.retryAfter)
            #expect(retryAfter > Date())
            #expect(retryAfter <= Date().addingTimeInterval(3601))
            // Other endpoints have their own budgets.
            _ = try await client.getTransactionInfo(transactionId: SimulatorHTTPFixture.weeklyLatest)
        }
    }
}
