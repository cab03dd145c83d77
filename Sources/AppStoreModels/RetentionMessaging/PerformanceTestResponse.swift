/// The response of Initiate Performance Test.
public struct PerformanceTestResponse: Codable, Hashable, Sendable {
    /// The test's parameters.
    public var config: PerformanceTestConfig?

    /// The identifier to pass to Get Performance Test Results.
    public var requestId: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(config: PerformanceTestConfig? = nil, requestId: String? = nil) {
        self.config = config
        self.requestId = requestId
    }
}
