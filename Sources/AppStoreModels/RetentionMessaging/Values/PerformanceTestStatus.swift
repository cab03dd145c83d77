/// The result of a Retention Messaging real-time endpoint performance test.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PerformanceTestStatus: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The test is running.
    public static let pending = PerformanceTestStatus(rawValue: "PENDING")

    /// The endpoint passed.
    public static let pass = PerformanceTestStatus(rawValue: "PASS")

    /// The endpoint failed.
    public static let fail = PerformanceTestStatus(rawValue: "FAIL")

    public static let known: [PerformanceTestStatus] = [
        .pending, .pass, .fail,
    ]
}
