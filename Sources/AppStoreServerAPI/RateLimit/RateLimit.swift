/// A rate: at most `requests` sends in any window of `window`.
public struct RateLimit: Hashable, Sendable, CustomStringConvertible {
    /// Sends allowed per window (at least 1).
    public var requests: Int
    /// The window length.
    public var window: Duration

    public init(requests: Int, per window: Duration) {
        self.requests = max(1, requests)
        self.window = window
    }

    /// A rate in requests per second; fractional rates below 1 become one request per longer
    /// window (0.1 per second is one per 10 seconds).
    public init(perSecond rate: Double) {
        if rate >= 1 {
            self.init(requests: Int((rate + 1e-9).rounded(.down)), per: .seconds(1))
        } else {
            let safeRate = max(rate, 1e-6)
            self.init(requests: 1, per: .seconds(1 / safeRate))
        }
    }

    /// This rate scaled by `factor` (sandbox: 0.1), never below one request per window.
    public func scaled(by factor: Double) -> RateLimit {
        RateLimit(perSecond: Double(requests) / window.seconds * factor)
    }

    public var description: String { "\(requests) per \(window)" }
}
