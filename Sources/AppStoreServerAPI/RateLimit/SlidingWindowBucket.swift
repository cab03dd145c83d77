import Foundation

/// One endpoint's budget: a token bucket of `limit.requests` tokens in which each token comes
/// back exactly one window after it was spent.
///
/// This keeps the bucket's burst while guaranteeing what Apple measures: no window of
/// `limit.window` ever holds more than `limit.requests` sends. Pure value; the
/// ``RateBudget`` actor owns one per app, environment and endpoint.
struct SlidingWindowBucket: Sendable {
    let limit: RateLimit
    /// The send slots granted most recently, ascending; at most `limit.requests` kept.
    private(set) var slots: [Date] = []
    /// No slot is granted before this (set after a 429).
    private(set) var notBefore: Date = .distantPast

    init(limit: RateLimit) {
        self.limit = limit
    }

    /// Grants the earliest slot at or after `now` that keeps the window guarantee, and records it.
    mutating func reserve(now: Date) -> Date {
        var slot = max(now, notBefore)
        if slots.count >= limit.requests {
            slot = max(slot, slots[slots.count - limit.requests].addingTimeInterval(limit.window.seconds))
        }
        if let last = slots.last { slot = max(slot, last) }
        slots.append(slot)
        if slots.count > limit.requests { slots.removeFirst(slots.count - limit.requests) }
        return slot
    }

    /// Holds every later slot until `date` (Apple's `Retry-After`).
    mutating func pause(until date: Date) {
        notBefore = max(notBefore, date)
    }
}
