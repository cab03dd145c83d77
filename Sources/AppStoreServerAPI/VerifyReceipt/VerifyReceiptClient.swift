import AppStoreModels
import Foundation

/// Apple's deprecated `verifyReceipt` endpoint, called the way Apple asks: production first,
/// the sandbox when production answers 21007, production again when the sandbox answers 21008;
/// transient failures (21005, 21009, 21100–21199 unless Apple says not retryable, HTTP 429 and
/// 5xx, transport errors) retried under a ``RetryPolicy``.
///
/// Every status is mapped to a ``VerifyReceiptVerdict``; a wrong shared secret (21004) is its
/// own verdict so the caller can raise an alert. Throws ``AppStoreServerAPIError`` only when no
/// readable answer was obtained.
public struct VerifyReceiptClient: VerifyReceiptClientProtocol {
    /// Where to send and how often to retry.
    public struct Configuration: Sendable {
        /// Apple's production endpoint unless overridden (a simulator).
        public var productionURL: URL
        /// Apple's sandbox endpoint unless overridden.
        public var sandboxURL: URL
        /// The environment tried first.
        public var firstEnvironment: AppStoreEnvironment
        /// When to retry transient failures.
        public var retryPolicy: RetryPolicy

        public static let appleProductionURL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!
        public static let appleSandboxURL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!

        public init(
            productionURL: URL = appleProductionURL, sandboxURL: URL = appleSandboxURL,
            firstEnvironment: AppStoreEnvironment = .production, retryPolicy: RetryPolicy = RetryPolicy()
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.firstEnvironment = firstEnvironment == .sandbox ? .sandbox : .production
            self.retryPolicy = retryPolicy
        }
    }

    public let configuration: Configuration
    let transport: any HTTPTransport
    let clock: any APIClock
    let random: @Sendable () -> Double

    public init(
        configuration: Configuration = Configuration(),
        transport: any HTTPTransport = AsyncHTTPClientTransport(),
        clock: any APIClock = SystemAPIClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    /// Verifies a receipt and returns Apple's final answer with its verdict.
    public func verify(_ request: VerifyReceiptRequest) async throws -> VerifyReceiptResult {
        let body: Data
        do {
            body = try JSONEncoder().encode(request)
        } catch {
            throw AppStoreServerAPIError(.invalidRequest, "cannot encode the verifyReceipt request: \(error)")
        }
        var environment = configuration.firstEnvironment
        var switched = false
        var route: [AppStoreEnvironment] = []
        var totalAttempts = 0
        while true {
            route.append(environment)
            let (response, attempts) = try await send(body, to: environment)
            totalAttempts += attempts
            let wrongEnvironment =
                (environment == .production && response.status == .sandboxReceiptSentToProduction)
                || (environment == .sandbox && response.status == .productionReceiptSentToSandbox)
            if wrongEnvironment && !switched {
                switched = true
                environment = environment == .production ? .sandbox : .production
                continue
            }
            return VerifyReceiptResult(
                verdict: VerifyReceiptVerdict(status: response.status), response: response, environment: environment,
                route: route, attempts: totalAttempts)
        }
    }

    /// Sends to one environment, retrying transient failures; returns the last readable answer.
    private func send(_ body: Data, to environment: AppStoreEnvironment) async throws -> (VerifyReceiptResponse, Int) {
        let url = environment == .sandbox ? configuration.sandboxURL : configuration.productionURL
        let request = HTTPRequestValue(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")], body: body)
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            var failure: AppStoreServerAPIError?
            var answer: VerifyReceiptResponse?
            var retryAfter: Date?
            do {
                let response = try await transport.send(request)
                retryAfter = response.header("Retry-After").flatMap { RetryAfter.date(from: $0, now: clock.now()) }
                if response.isSuccess {
                    do {
                        answer = try JSONDecoder().decode(VerifyReceiptResponse.self, from: response.body)
                    } catch {
                        throw AppStoreServerAPIError(
                            .malformedResponse, "verifyReceipt returned an unreadable body: \(error)",
                            httpStatus: response.status, attempts: attempt)
                    }
                } else {
                    failure = AppStoreServerAPIError(
                        .apiError, "verifyReceipt answered HTTP \(response.status)", httpStatus: response.status,
                        retryAfter: retryAfter, attempts: attempt)
                }
            } catch let error as AppStoreServerAPIError {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch {
                failure = AppStoreServerAPIError(.transport, "verifyReceipt: \(error)", attempts: attempt)
            }

            if let answer, !Self.shouldRetry(answer) || attempt >= policy.maximumAttempts {
                return (answer, attempt)
            }
            if let failure, !failure.isRetryable || attempt >= policy.maximumAttempts {
                throw failure
            }
            let now = clock.now()
            let wait =
                retryAfter.map { min($0.timeIntervalSince(now), policy.maximumRetryAfter.seconds) }
                ?? policy.backoff(afterAttempt: attempt, random: random()).seconds
            try await clock.sleep(until: now.addingTimeInterval(max(0, wait)))
        }
    }

    /// Whether Apple's answer is transient: 21005, 21009, and 21100–21199 unless `is-retryable` is false.
    static func shouldRetry(_ response: VerifyReceiptResponse) -> Bool {
        let status = response.status
        if status == .serverUnavailable || status == .internalDataAccessError { return response.isRetryable != false }
        if status.isInternalDataAccessError { return response.isRetryable != false }
        return false
    }
}
