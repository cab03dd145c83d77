/// When the inbox worker lets the door go first.
///
/// While notifications arrive in a burst — the last two within `quiet` of each other and of
/// now — the worker waits before it takes its next batch, so the door's durable writes are not
/// queued behind processing's (both need the database's writer, and both the two cores): a
/// burst is acknowledged at the door's pace and processed right after it. It never waits past
/// `limit` after the oldest notification still waiting for processing arrived, so a stream
/// that never pauses is processed as it comes, as if it did not wait at all. A notification
/// arriving alone is never held.
package struct ArrivalPace: Sendable {
    package typealias Instant = ContinuousClock.Instant

    /// How long arrivals must pause before processing goes on.
    package let quiet: Duration
    /// The longest a notification waits for processing because of arrivals after it.
    package let limit: Duration
    private(set) var latest: Instant?
    private(set) var previous: Instant?
    /// When the first notification not yet taken by processing arrived.
    private(set) var waitingSince: Instant?

    package init(quiet: Duration, limit: Duration) {
        self.quiet = quiet
        self.limit = limit
    }

    package mutating func arrived(at now: Instant) {
        previous = latest
        latest = now
        if waitingSince == nil { waitingSince = now }
    }

    /// A claim that started at `start` found nothing pending: whatever arrived before it is
    /// taken, so nothing waits unless something arrived since.
    package mutating func emptied(claimStartedAt start: Instant) {
        if let latest, latest > start { return }
        waitingSince = nil
    }

    /// Until when processing should wait at `now`, or `nil` to go on.
    package func holdsUntil(_ now: Instant) -> Instant? {
        guard quiet > .zero, let previous, let waitingSince else { return nil }
        let pause = previous.advanced(by: quiet)
        let deadline = waitingSince.advanced(by: limit)
        guard now < pause, now < deadline else { return nil }
        return min(pause, deadline)
    }
}
