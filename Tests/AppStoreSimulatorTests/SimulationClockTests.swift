import AppStoreSimulator
import Foundation
import Testing

@Suite("Simulation clock")
struct SimulationClockTests {
    @Test("a stopped clock moves only forward and only when told")
    func stoppedClockMovesOnlyForward() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = SimulationClock(start: start)
        #expect(clock.now == start)
        clock.advance(by: 3_600)
        #expect(clock.now == start.addingTimeInterval(3_600))
        clock.set(start)
        #expect(clock.now == start.addingTimeInterval(3_600))
    }

    @Test("following the wall clock continues from the simulated instant without a jump")
    func followsWallClockWithoutJump() {
        let start = Date(timeIntervalSince1970: 1_000_000_000)
        let clock = SimulationClock(start: start)
        clock.followWallClock()
        #expect(clock.isFollowingWallClock)
        let elapsed = clock.now.timeIntervalSince(start)
        #expect(elapsed >= 0 && elapsed < 5)
    }
}
