import Foundation

extension NotificationDelivery {
    /// Delivers what falls due as `clock` moves, until the calling task is cancelled.
    ///
    /// For a clock that follows the wall clock (the demo left running) or one stepped by
    /// another task: every `pollInterval` of real time, or sooner when the next post is due
    /// sooner on a wall-clock-following clock, it calls ``deliverDue(now:)`` with the clock's
    /// instant. Returns when the task is cancelled; posts already under way finish first.
    ///
    /// - Returns: everything delivered while it ran.
    @discardableResult
    public func run(clock: SimulationClock, pollInterval: Duration = .milliseconds(250)) async -> DeliveryReport {
        var report = DeliveryReport()
        while !Task.isCancelled {
            report.add(await deliverDue(now: clock.now))
            var wait = pollInterval
            if clock.isFollowingWallClock, let next = nextDueDate {
                let seconds = max(0, next.timeIntervalSince(clock.now))
                wait = min(wait, .milliseconds(Int64(min(seconds, 3600) * 1000)))
            }
            do {
                try await Task.sleep(for: max(wait, .milliseconds(1)))
            } catch {
                break
            }
        }
        return report
    }
}
