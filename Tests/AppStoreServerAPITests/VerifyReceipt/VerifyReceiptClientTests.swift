import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("verifyReceipt client")
struct VerifyReceiptClientTests {
    static let productionPath = "/verifyReceipt"
    static let request = VerifyReceiptRequest(receiptData: "MIIT...", password: "secret", excludeOldTransactions: true)

    struct Harness {
        let transport = ScriptedTransport()
        let clock = TestAPIClock()
        let client: VerifyReceiptClient

        init(retryPolicy: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialBackoff: .seconds(1), jitter: 0)) {
            client = VerifyReceiptClient(
                configuration: .init(
                    productionURL: URL(string: "https://prod.test/verifyReceipt")!,
                    sandboxURL: URL(string: "https://sandbox.test/verifyReceipt")!, retryPolicy: retryPolicy),
                transport: transport, clock: clock, random: { 0 })
        }

        func hosts() async -> [String] {
            await transport.requests.compactMap(\.url.host)
        }
    }

    static func status(_ code: Int, retryable: Bool? = nil) -> HTTPResponseValue {
        let flag = retryable.map { #","is-retryable":\#($0)"# } ?? ""
        return .json(200, #"{"status":\#(code)\#(flag)}"#)
    }

    static func valid(environment: String) throws -> HTTPResponseValue {
        var object = try #require(try JSONSerialization.jsonObject(with: Fixture.data("verifyReceiptResponse.json")) as? [String: Any])
        object["status"] = 0
        object["environment"] = environment
        return .json(200, data: try JSONSerialization.data(withJSONObject: object))
    }

    @Test("a valid production receipt is answered by production alone, with Apple's request body")
    func production() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: try Self.valid(environment: "Production"))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .valid)
        #expect(result.environment == .production)
        #expect(result.route == [.production])
        #expect(result.response.latestReceiptInfo?.isEmpty == false)
        let sent = try #require(await harness.transport.requests.first)
        #expect(sent.url.host == "prod.test")
        #expect(sent.header("Content-Type") == "application/json")
        let body = try #require(sent.body)
        #expect(try jsonObject(body) == jsonObject(Data(#"{"receipt-data":"MIIT...","password":"secret","exclude-old-transactions":true}"#.utf8)))
    }

    @Test("21007 from production sends the receipt to the sandbox")
    func sandboxReceipt() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21007))
        await harness.transport.expect("POST", Self.productionPath, respond: try Self.valid(environment: "Sandbox"))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .valid)
        #expect(result.environment == .sandbox)
        #expect(result.route == [.production, .sandbox])
        #expect(await harness.hosts() == ["prod.test", "sandbox.test"])
    }

    @Test("21008 from the sandbox sends the receipt to production")
    func productionReceiptInSandbox() async throws {
        let transport = ScriptedTransport()
        let client = VerifyReceiptClient(
            configuration: .init(
                productionURL: URL(string: "https://prod.test/verifyReceipt")!,
                sandboxURL: URL(string: "https://sandbox.test/verifyReceipt")!, firstEnvironment: .sandbox),
            transport: transport, clock: TestAPIClock())
        await transport.expect("POST", Self.productionPath, respond: Self.status(21008))
        await transport.expect("POST", Self.productionPath, respond: try Self.valid(environment: "Production"))
        let result = try await client.verify(Self.request)
        #expect(result.route == [.sandbox, .production])
        #expect(result.verdict == .valid)
        #expect(await transport.requests.compactMap(\.url.host) == ["sandbox.test", "prod.test"])
    }

    @Test("a second wrong-environment answer does not ping-pong")
    func noPingPong() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21007))
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21008))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .wrongEnvironment(.productionReceiptSentToSandbox))
        #expect(await harness.transport.requests.count == 2)
    }

    @Test("21004 is reported as a wrong shared secret that needs an alert")
    func wrongSharedSecret() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21004))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .wrongSharedSecret)
        #expect(result.verdict.needsAlert)
        #expect(!result.verdict.isValid)
        #expect(await harness.transport.requests.count == 1)
    }

    @Test(
        "every status maps to a verdict",
        arguments: [
            (0, VerifyReceiptVerdict.valid), (21000, .invalidReceipt(.unreadableRequest)), (21001, .invalidReceipt(.receiptDataMissing)),
            (21002, .invalidReceipt(.malformedReceipt)), (21003, .invalidReceipt(.notAuthenticated)), (21004, .wrongSharedSecret),
            (21005, .temporarilyUnavailable(.serverUnavailable)), (21006, .subscriptionExpired),
            (21007, .wrongEnvironment(.sandboxReceiptSentToProduction)), (21008, .wrongEnvironment(.productionReceiptSentToSandbox)),
            (21009, .temporarilyUnavailable(.internalDataAccessError)), (21010, .invalidReceipt(.accountNotFound)),
            (21100, .temporarilyUnavailable(VerifyReceiptStatus(rawValue: 21100))),
            (21199, .temporarilyUnavailable(VerifyReceiptStatus(rawValue: 21199))),
            (21200, .undocumented(VerifyReceiptStatus(rawValue: 21200))),
        ])
    func verdicts(_ code: Int, _ verdict: VerifyReceiptVerdict) {
        #expect(VerifyReceiptVerdict(status: VerifyReceiptStatus(rawValue: code)) == verdict)
        #expect(VerifyReceiptVerdict(status: VerifyReceiptStatus(rawValue: code)).needsAlert == (code == 21004))
    }

    @Test("transient statuses are retried with backoff until Apple answers", arguments: [21005, 21009, 21150])
    func retriesTransientStatus(_ code: Int) async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(code))
        await harness.transport.expect("POST", Self.productionPath, respond: try Self.valid(environment: "Production"))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .valid)
        #expect(result.attempts == 2)
        #expect(harness.clock.sleeps == [.seconds(1)])
    }

    @Test("21100–21199 marked not retryable by Apple are not retried")
    func respectsIsRetryableFalse() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21101, retryable: false))
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .temporarilyUnavailable(VerifyReceiptStatus(rawValue: 21101)))
        #expect(result.attempts == 1)
    }

    @Test("a transient status that persists ends as temporarily unavailable after the policy's attempts")
    func exhaustsRetries() async throws {
        let harness = Harness()
        for _ in 0..<3 { await harness.transport.expect("POST", Self.productionPath, respond: Self.status(21005)) }
        let result = try await harness.client.verify(Self.request)
        #expect(result.verdict == .temporarilyUnavailable(.serverUnavailable))
        #expect(result.attempts == 3)
        #expect(harness.clock.sleeps == [.seconds(1), .seconds(2)])
    }

    @Test("HTTP 5xx and transport failures are retried; a 4xx is thrown at once")
    func httpFailures() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: HTTPResponseValue(status: 503))
        await harness.transport.expect("POST", Self.productionPath, fail: ScriptedTransportError("reset"))
        await harness.transport.expect("POST", Self.productionPath, respond: try Self.valid(environment: "Production"))
        #expect(try await harness.client.verify(Self.request).verdict == .valid)

        let other = Harness()
        await other.transport.expect("POST", Self.productionPath, respond: HTTPResponseValue(status: 403))
        let error = try await #require(throws: AppStoreServerAPIError.self) { _ = try await other.client.verify(Self.request) }
        #expect(error.httpStatus == 403)
        #expect(await other.transport.requests.count == 1)
    }

    @Test("an unreadable answer is a malformedResponse error")
    func unreadable() async throws {
        let harness = Harness()
        await harness.transport.expect("POST", Self.productionPath, respond: .json(200, "<html>"))
        let error = try await #require(throws: AppStoreServerAPIError.self) { _ = try await harness.client.verify(Self.request) }
        #expect(error.code == .malformedResponse)
    }
}
