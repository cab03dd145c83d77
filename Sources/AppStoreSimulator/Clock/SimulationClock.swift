import Foundation
import Synchronization

/// The simulator's time, shared by the simulated App Store and whatever runs against it.
///
/// It starts stopped at an instant and moves only when told (``set(_:)``/``advance(by:)``), so
/// a year runs in seconds and tests are deterministic. ``followWallClock()`` hands it over to
/// real time from where it stands: afterwards ``now`` moves with the wall clock, offset so that
/// there is no jump.
public final class SimulationClock: Sendable {
    private struct State {
        var instant: Date
        /// When following the wall clock: simulated minus real time.
        var offset: TimeInterval?
    }

    private let state: Mutex<State>

    public init(start: Date) {
        state = Mutex(State(instant: start, offset: nil))
    }

    /// The simulated instant.
    public var now: Date {
        state.withLock { state in
            if let offset = state.offset { return Date().addingTimeInterval(offset) }
            return state.instant
        }
    }

    /// Moves the clock to `instant` (never backwards) and stops it there.
    public func set(_ instant: Date) {
        state.withLock { state in
            let current = state.offset.map { Date().addingTimeInterval($0) } ?? state.instant
            state.instant = max(current, instant)
            state.offset = nil
        }
    }

    /// Moves a stopped clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        set(now.addingTimeInterval(seconds))
    }

    /// From now on the clock runs at the wall clock's pace, from its current instant.
    public func followWallClock() {
        state.withLock { state in
            guard state.offset == nil else { return }
            state.offset = state.instant.timeIntervalSince(Date())
        }
    }

    /// Whether the clock moves with the wall clock.
    public var isFollowingWallClock: Bool { state.withLock { $0.offset != nil } }
}
