import Foundation

/// Apple's App Store Server API rate limits as the simulator applies them: a per-endpoint rate
/// in requests per second, enforced over a window (Apple: one hour), with the sandbox allowed
/// 10% of production.
///
/// `multiplier` scales every limit (a demo or test sets it tiny to provoke a 429); `isEnabled`
/// false turns limiting off.
public struct SimulatorRateLimits: Sendable, Hashable {
    /// Whether requests over the limit are refused with HTTP 429.
    public var isEnabled: Bool
    /// Scales every endpoint's limit (1 = Apple's).
    public var multiplier: Double
    /// The enforcement window in seconds (Apple: 3600).
    public var window: TimeInterval
    /// The share of the production limit the sandbox gets (Apple: 0.1).
    public var sandboxShare: Double

    /// Apple's limits, enforced hourly.
    public init(isEnabled: Bool = true, multiplier: Double = 1, window: TimeInterval = 3600, sandboxShare: Double = 0.1) {
        self.isEnabled = isEnabled
        self.multiplier = multiplier
        self.window = window
        self.sandboxShare = sandboxShare
    }

    /// No limits at all.
    public static let off = SimulatorRateLimits(isEnabled: false)

    /// The number of requests allowed in one window for an endpoint allowing `rate` requests per
    /// second in production; at least one.
    public func requestsPerWindow(rate: Double, sandbox: Bool) -> Int {
        let share = sandbox ? sandboxShare : 1
        let allowed = (rate * window * multiplier * share).rounded(.down)
        guard allowed.isFinite else { return Int.max }
        return Int(max(1, min(allowed, Double(Int.max / 2))))
    }
}
