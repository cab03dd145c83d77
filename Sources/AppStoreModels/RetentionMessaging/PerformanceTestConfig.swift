/// The parameters of a real-time endpoint performance test.
public struct PerformanceTestConfig: Codable, Hashable, Sendable {
    /// The most requests in flight at once.
    public var maxConcurrentRequests: Int64?

    /// The number of requests sent.
    public var totalRequests: Int64?

    /// The test's duration, in milliseconds.
    public var totalDuration: Int64?

    /// The response time a request must beat, in milliseconds.
    public var responseTimeThreshold: Int64?

    /// The percentage of requests that must succeed.
    public var successRateThreshold: Int32?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        maxConcurrentRequests: Int64? = nil,
        totalRequests: Int64? = nil,
        totalDuration: Int64? = nil,
        responseTimeThreshold: Int64? = nil,
        successRateThreshold: Int32? = nil
    ) {
        self.maxConcurrentRequests = maxConcurrentRequests
        self.totalRequests = totalRequests
        self.totalDuration = totalDuration
        self.responseTimeThreshold = responseTimeThreshold
        self.successRateThreshold = successRateThreshold
    }
}
