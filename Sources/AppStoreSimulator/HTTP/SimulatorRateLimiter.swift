import Foundation
import Synchronization

/// Counts requests per endpoint in fixed windows of wall-clock time and refuses those over the
/// endpoint's limit, as Apple's hourly enforcement does.
///
/// Windows are aligned on multiples of the window length since 1970, so every endpoint's budget
/// renews at the same instants (the top of each hour with Apple's window); a refused request
/// learns when its window ends, which is what `Retry-After` carries.
final class SimulatorRateLimiter: Sendable {
    private struct Bucket {
        var windowStart: Date
        var count: Int
    }

    let limits: SimulatorRateLimits
    let sandbox: Bool
    private let buckets = Mutex<[String: Bucket]>([:])

    init(limits: SimulatorRateLimits, sandbox: Bool) {
        self.limits = limits
        self.sandbox = sandbox
    }

    /// Admits one request to `endpoint` at `now`, or returns the instant its budget renews.
    func admit(_ endpoint: SimulatorAPIEndpoint, now: Date) -> Date? {
        guard limits.isEnabled, limits.window > 0 else { return nil }
        let limit = limits.requestsPerWindow(rate: endpoint.rate, sandbox: sandbox)
        let seconds = now.timeIntervalSince1970
        let start = Date(timeIntervalSince1970: (seconds / limits.window).rounded(.down) * limits.window)
        return buckets.withLock { buckets in
            var bucket = buckets[endpoint.name] ?? Bucket(windowStart: start, count: 0)
            if bucket.windowStart != start { bucket = Bucket(windowStart: start, count: 0) }
            guard bucket.count < limit else { return start.addingTimeInterval(limits.window) }
            bucket.count += 1
            buckets[endpoint.name] = bucket
            return nil
        }
    }
}
