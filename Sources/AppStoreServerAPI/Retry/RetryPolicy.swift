import Foundation

/// When and how long to wait before sending a failed request again: exponential backoff with
/// jitter, capped, and Apple's `Retry-After` honoured up to a limit.
public struct RetryPolicy: Hashable, Sendable {
    /// Total attempts including the first (1 disables retries).
    public var maximumAttempts: Int
    /// The wait before the second attempt, before jitter.
    public var initialBackoff: Duration
    /// The factor by which the wait grows after each attempt.
    public var multiplier: Double
    /// The longest wait between attempts, before jitter.
    public var maximumBackoff: Duration
    /// The fraction of each wait that is randomised (0 none, 1 "full jitter"), so clients that
    /// failed together do not retry together.
    public var jitter: Double
    /// The longest `Retry-After` wait honoured in-line; a longer one fails the call with
    /// ``AppStoreServerAPIError/Code/retryAfterTooLong`` and its date, for the caller to reschedule.
    public var maximumRetryAfter: Duration

    public init(
        maximumAttempts: Int = 4,
        initialBackoff: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumBackoff: Duration = .seconds(30),
        jitter: Double = 0.5,
        maximumRetryAfter: Duration = .seconds(120)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.multiplier = max(1, multiplier)
        self.maximumBackoff = maximumBackoff
        self.jitter = min(1, max(0, jitter))
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// No retries at all.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// The wait after failed attempt number `attempt` (1-based), with `random` in `0..<1`
    /// choosing the jitter: `min(maximum, initial × multiplier^(attempt−1)) × (1 − jitter × random)`.
    public func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let base = initialBackoff.seconds * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(maximumBackoff.seconds, base)
        let unit = min(max(random, 0), 1)
        return .seconds(capped * (1 - jitter * unit))
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
