import Foundation

/// Spaces sends to one destination at least `interval` apart (Slack's one message a second,
/// on the continuous clock), and holds a destination back while it asked to wait: a 429's
/// `Retry-After` (Slack's header, Telegram's `parameters.retry_after`) pauses every delivery to
/// it until then, on the dispatcher's clock. Kept by this process: each replica learns of a
/// pause from its own 429.
package actor Pacing {
    private var last: [String: ContinuousClock.Instant] = [:]
    private var pauses: [String: Date] = [:]

    package init() {}

    package func wait(for key: String, interval: Duration) async {
        let now = ContinuousClock.now
        if let previous = last[key], now < previous + interval {
            try? await Task.sleep(until: previous + interval, clock: .continuous)
        }
        last[key] = ContinuousClock.now
    }

    /// Pauses `key` until `date` (a later pause already set is kept).
    package func pause(_ key: String, until date: Date) {
        pauses[key] = max(date, pauses[key] ?? date)
    }

    /// When the pause of `key` ends, if it is paused at `now`.
    package func pausedUntil(_ key: String, now: Date) -> Date? {
        guard let until = pauses[key] else { return nil }
        guard until > now else {
            pauses[key] = nil
            return nil
        }
        return until
    }
}
