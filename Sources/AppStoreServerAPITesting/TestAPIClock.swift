import AppStoreServerAPI
import Foundation

/// A virtual ``APIClock`` for tests.
///
/// In `.automatic` mode every sleep returns at once and moves the time forward to its deadline,
/// so a sequence of retries runs instantly and its waits are recorded in ``sleeps``. In
/// `.manual` mode sleepers stay suspended until the test calls ``advance(to:)`` (or
/// ``advanceToNextDeadline()``), so concurrent tasks see one consistent timeline.
public final class TestAPIClock: APIClock, @unchecked Sendable {
    // Safety: every stored property is read and written only while holding `lock`; continuations
    // are resumed after the lock is released.

    /// How sleeps behave.
    public enum Mode: Sendable {
        case automatic
        case manual
    }

    private let lock = NSLock()
    private let mode: Mode
    private var current: Date
    private var recordedSleeps: [Duration] = []
    private var sleepers: [(deadline: Date, continuation: CheckedContinuation<Void, Never>)] = []

    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000), mode: Mode = .automatic) {
        self.current = now
        self.mode = mode
    }

    public func now() -> Date {
        lock.withLock { current }
    }

    /// The waits requested so far (positive ones only), in order.
    public var sleeps: [Duration] {
        lock.withLock { recordedSleeps }
    }

    /// How many tasks are waiting (manual mode).
    public var pendingSleepers: Int {
        lock.withLock { sleepers.count }
    }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let suspend: Bool = lock.withLock {
            let wait = deadline.timeIntervalSince(current)
            guard wait > 0 else { return false }
            recordedSleeps.append(.milliseconds(Int64((wait * 1000).rounded())))
            if mode == .automatic {
                current = deadline
                return false
            }
            return true
        }
        guard suspend else { return }
        await withCheckedContinuation { continuation in
            let resumeNow: Bool = lock.withLock {
                if deadline <= current { return true }
                sleepers.append((deadline, continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Moves time to `date` and wakes every sleeper whose deadline has come.
    public func advance(to date: Date) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            current = max(current, date)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Moves time by `duration`.
    public func advance(by duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        advance(to: now().addingTimeInterval(seconds))
    }

    /// Advances to the earliest pending deadline; returns `false` when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = lock.withLock({ sleepers.map(\.deadline).min() }) else { return false }
        advance(to: next)
        return true
    }
}
