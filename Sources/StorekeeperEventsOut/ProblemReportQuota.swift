import Foundation
import Synchronization

/// How many problem reports each customer may file: a bucket of ``burst`` reports per customer
/// of an app that refills one every ``refill`` seconds. An app filing more is answered 429 with
/// the wait; a flood from one customer's token costs neither tickets nor alerts nor disk.
///
/// Kept in this process (each replica counts its own); customers are keyed by the exact bytes
/// of their ids (``CustomerId``). Customers whose bucket is full again are forgotten when more
/// than ``capacity`` are kept (all of them, should every one still be waiting).
package final class ProblemReportQuota: Sendable {
    package let burst: Double
    package let refill: TimeInterval
    package let capacity: Int
    private let buckets = Mutex<[[UInt8]: (tokens: Double, at: Date)]>([:])

    package init(burst: Int = 10, refill: TimeInterval = 60, capacity: Int = 100_000) {
        self.burst = Double(burst)
        self.refill = refill
        self.capacity = capacity
    }

    /// Takes one report from the customer's bucket at `now`: `nil` when there was one, else the
    /// seconds until there is.
    package func take(appId: String, customerId: String, now: Date) -> TimeInterval? {
        let key = Array(appId.utf8) + [0xFF] + Array(customerId.utf8)
        return buckets.withLock { buckets in
            let kept = buckets[key]
            // A clock that went back refills nothing and never throws the bucket away.
            let elapsed = max(0, kept.map { now.timeIntervalSince($0.at) } ?? .infinity)
            let tokens = min(burst, (kept?.tokens ?? burst) + elapsed / refill)
            guard tokens >= 1 else {
                buckets[key] = (tokens, now)
                return (1 - tokens) * refill
            }
            if kept == nil, buckets.count >= capacity {
                buckets = buckets.filter { min(burst, $0.value.tokens + max(0, now.timeIntervalSince($0.value.at)) / refill) < burst }
                if buckets.count >= capacity { buckets.removeAll() }
            }
            buckets[key] = (tokens - 1, now)
            return nil
        }
    }
}
