/// The results of a real-time endpoint performance test (Get Performance Test Results).
public struct PerformanceTestResultResponse: Codable, Hashable, Sendable {
    /// The test's parameters.
    public var config: PerformanceTestConfig?

    /// The URL that was tested.
    public var target: String?

    /// Whether the endpoint passed.
    public var result: PerformanceTestStatus?

    /// The percentage of requests that succeeded.
    public var successRate: Int32?

    /// The number of requests still in flight.
    public var numPending: Int32?

    /// Response-time statistics.
    public var responseTimes: PerformanceTestResponseTimes?

    /// Failed requests counted by `SendAttemptResult` raw value.
    public var failures: [String: Int32]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        config: PerformanceTestConfig? = nil,
        target: String? = nil,
        result: PerformanceTestStatus? = nil,
        successRate: Int32? = nil,
        numPending: Int32? = nil,
        responseTimes: PerformanceTestResponseTimes? = nil,
        failures: [String: Int32]? = nil
    ) {
        self.config = config
        self.target = target
        self.result = result
        self.successRate = successRate
        self.numPending = numPending
        self.responseTimes = responseTimes
        self.failures = failures
    }
}
