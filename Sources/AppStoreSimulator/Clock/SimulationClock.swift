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
        /// When following the wall clock: the real instant it started from, and the pace.
        var realAnchor: Date?
        var rate: Double = 1

        func now(real: Date) -> Date {
            guard let realAnchor else { return instant }
            return instant.addingTimeInterval(real.timeIntervalSince(realAnchor) * rate)
        }
    }

    private let state: Mutex<State>

    public init(start: Date) {
        state = Mutex(State(instant: start))
    }

    /// The simulated instant.
    public var now: Date {
        state.withLock { $0.now(real: Date()) }
    }

    /// Moves the clock to `instant` (never backwards) and stops it there.
    public func set(_ instant: Date) {
        state.withLock { state in
            state.instant = max(state.now(real: Date()), instant)
            state.realAnchor = nil
        }
    }

    /// Moves a stopped clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        set(now.addingTimeInterval(seconds))
    }

    /// From now on the clock runs with the wall clock from its current instant, `rate` simulated
    /// seconds per real second (1: real time; 60: a minute a second).
    public func followWallClock(rate: Double = 1) {
        state.withLock { state in
            let real = Date()
            state.instant = state.now(real: real)
            state.realAnchor = real
            state.rate = rate.isFinite && rate > 0 ? rate : 1
        }
    }

    /// Whether the clock moves with the wall clock.
    public var isFollowingWallClock: Bool { state.withLock { $0.realAnchor != nil } }
}
