import Foundation

/// Wall-clock time and sleeping, injected so the clients never read the system clock in their
/// logic and tests run instantly on a virtual clock.
///
/// Wall time (not a monotonic instant) because everything the clients time is anchored to it:
/// token `iat`/`exp` claims, Apple's `Retry-After` (a Unix time in milliseconds), and rate
/// windows shared with those deadlines.
public protocol APIClock: Sendable {
    /// The current time.
    func now() -> Date

    /// Suspends until `deadline`; returns at once when it has passed. Throws `CancellationError`
    /// when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The live clock: the system's wall clock and `Task.sleep`.
public struct SystemAPIClock: APIClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
