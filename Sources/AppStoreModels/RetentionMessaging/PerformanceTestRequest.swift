/// The body of Initiate Performance Test.
public struct PerformanceTestRequest: Codable, Hashable, Sendable {
    /// A sandbox subscription to use in the test requests.
    public var originalTransactionId: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
    }
}
