import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("Retries, backoff and Retry-After")
struct RetryTests {
    static let path = "/inApps/v1/transactions/1"
    static let ok = HTTPResponseValue.json(200, #"{"signedTransactionInfo":"x"}"#)

    @Test("a retryable Apple error is retried with exponential backoff until it succeeds")
    func retriesRetryableCode() async throws {
        let harness = try ClientHarness(retryPolicy: RetryPolicy(maximumAttempts: 4, initialBackoff: .seconds(1), jitter: 0))
        let retryable = HTTPResponseValue.json(500, #"{"errorCode":5000001,"errorMessage":"retry"}"#)
        await harness.transport.expect("GET", Self.path, respond: retryable)
        await harness.transport.expect("GET", Self.path, respond: .json(404, #"{"errorCode":4040002,"errorMessage":"retry"}"#))
        await harness.transport.expect("GET", Self.path, respond: retryable)
        await harness.transport.expect("GET", Self.path, respond: Self.ok)

        let response = try await harness.client.getTransactionInfo(transactionId: "1")
        #expect(response.signedTransactionInfo == "x")
        #expect(await harness.transport.requests.count == 4)
        #expect(harness.clock.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("jitter shortens each wait by the random fraction")
    func jitter() {
        let policy = RetryPolicy(initialBackoff: .seconds(2), multiplier: 3, maximumBackoff: .seconds(10), jitter: 0.5)
        #expect(policy.backoff(afterAttempt: 1, random: 0) == .seconds(2))
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 2, random: 0) == .seconds(6))
        #expect(policy.backoff(afterAttempt: 3, random: 0) == .seconds(10))
        #expect(policy.backoff(afterAttempt: 3, random: 0.5) == .seconds(7.5))
    }

    @Test("a 5xx without an Apple body and a transport failure are retried")
    func retriesServerErrorsAndTransportFailures() async throws {
        let harness = try ClientHarness(retryPolicy: RetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(100), jitter: 0))
        await harness.transport.expect("GET", Self.path, respond: HTTPResponseValue(status: 503))
        await harness.transport.expect("GET", Self.path, fail: ScriptedTransportError("connection reset"))
        await harness.transport.expect("GET", Self.path, respond: Self.ok)
        _ = try await harness.client.getTransactionInfo(transactionId: "1")
        #expect(await harness.transport.requests.count == 3)
        #expect(harness.clock.sleeps == [.milliseconds(100), .milliseconds(200)])
    }

    @Test("a non-retryable error is not retried")
    func doesNotRetryClientErrors() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect("GET", Self.path, respond: .json(404, data: try Fixture.model("transactionIdNotFoundError")))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.apiErrorCode == .transactionIdNotFound)
        #expect(await harness.transport.requests.count == 1)
        #expect(harness.clock.sleeps.isEmpty)
    }

    @Test("retries stop after the policy's attempts and report the last error")
    func givesUp() async throws {
        let harness = try ClientHarness(retryPolicy: RetryPolicy(maximumAttempts: 3, initialBackoff: .seconds(1), jitter: 0))
        for _ in 0..<3 {
            await harness.transport.expect("GET", Self.path, respond: .json(500, #"{"errorCode":5000000,"errorMessage":"down"}"#))
        }
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.apiErrorCode == .generalInternal)
        #expect(error.attempts == 3)
        #expect(await harness.transport.requests.count == 3)
    }

    @Test("a 429 waits until the Retry-After instant in Unix milliseconds")
    func honoursRetryAfterMilliseconds() async throws {
        let clock = TestAPIClock()
        let harness = try ClientHarness(retryPolicy: RetryPolicy(initialBackoff: .seconds(1), jitter: 0), clock: clock)
        let retryAt = clock.now().addingTimeInterval(7.25)
        let header = String(Int64(retryAt.timeIntervalSince1970 * 1000))
        await harness.transport.expect(
            "GET", Self.path, respond: .json(429, data: try Fixture.model("apiTooManyRequestsException"), headers: ["Retry-After": header]))
        await harness.transport.expect("GET", Self.path, respond: Self.ok)
        _ = try await harness.client.getTransactionInfo(transactionId: "1")
        #expect(clock.sleeps == [.milliseconds(7250)])
        #expect(clock.now() == retryAt)
    }

    @Test("a 429 holds back other requests to the same endpoint until Retry-After")
    func retryAfterPausesTheEndpoint() async throws {
        let clock = TestAPIClock()
        let budget = RateBudget()
        let harness = try ClientHarness(retryPolicy: .none, clock: clock, budget: budget)
        let header = String(Int64(clock.now().addingTimeInterval(30).timeIntervalSince1970 * 1000))
        await harness.transport.expect("GET", Self.path, respond: .json(429, #"{"errorCode":4290000}"#, headers: ["Retry-After": header]))
        await harness.transport.expect("GET", Self.path, respond: Self.ok)
        await #expect(throws: AppStoreServerAPIError.self) { _ = try await harness.client.getTransactionInfo(transactionId: "1") }
        _ = try await harness.client.getTransactionInfo(transactionId: "1")
        #expect(clock.sleeps == [.seconds(30)])
    }

    @Test("Retry-After in delay seconds is honoured")
    func retryAfterSeconds() async throws {
        let harness = try ClientHarness(retryPolicy: RetryPolicy(jitter: 0))
        await harness.transport.expect("GET", Self.path, respond: HTTPResponseValue(status: 503, headers: ["retry-after": "3"]))
        await harness.transport.expect("GET", Self.path, respond: Self.ok)
        _ = try await harness.client.getTransactionInfo(transactionId: "1")
        #expect(harness.clock.sleeps == [.seconds(3)])
    }

    @Test("a Retry-After beyond the policy's limit fails at once with the instant to reschedule at")
    func retryAfterTooLong() async throws {
        let clock = TestAPIClock()
        let harness = try ClientHarness(retryPolicy: RetryPolicy(maximumRetryAfter: .seconds(60)), clock: clock)
        let retryAt = clock.now().addingTimeInterval(3600)
        await harness.transport.expect(
            "GET", Self.path,
            respond: .json(429, #"{"errorCode":4290000}"#, headers: ["Retry-After": String(Int64(retryAt.timeIntervalSince1970 * 1000))]))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.code == .retryAfterTooLong)
        #expect(error.retryAfter == retryAt)
        #expect(error.isRetryable)
        #expect(await harness.transport.requests.count == 1)
    }

    @Test("Retry-After forms: Unix ms, Unix seconds, delay seconds, HTTP date, garbage")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.date(from: "1700000005000", now: now) == Date(timeIntervalSince1970: 1_700_000_005))
        #expect(RetryAfter.date(from: "1700000009", now: now) == Date(timeIntervalSince1970: 1_700_000_009))
        #expect(RetryAfter.date(from: "120", now: now) == now.addingTimeInterval(120))
        #expect(RetryAfter.date(from: "Wed, 21 Oct 2015 07:28:00 GMT", now: now) == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(RetryAfter.date(from: "soon", now: now) == nil)
        #expect(RetryAfter.date(from: "-5", now: now) == nil)
    }
}
