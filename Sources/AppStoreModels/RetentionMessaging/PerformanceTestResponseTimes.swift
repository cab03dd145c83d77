/// Response-time statistics of a performance test, in milliseconds.
public struct PerformanceTestResponseTimes: Codable, Hashable, Sendable {
    /// The mean.
    public var average: Int64?

    /// The median.
    public var p50: Int64?

    /// The 90th percentile.
    public var p90: Int64?

    /// The 95th percentile.
    public var p95: Int64?

    /// The 99th percentile.
    public var p99: Int64?

    /// Creates a value from its fields; optional fields default to absent.
    public init(average: Int64? = nil, p50: Int64? = nil, p90: Int64? = nil, p95: Int64? = nil, p99: Int64? = nil) {
        self.average = average
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
    }
}
