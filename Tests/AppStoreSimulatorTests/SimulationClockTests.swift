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

@Suite("Simulated time scales")
struct SimulatedTimeScaleTests {
    @Test("a clock following the wall clock at a rate moves that many times faster")
    func rateMultipliesElapsedTime() async throws {
        let start = Date(timeIntervalSince1970: 1_000_000_000)
        let clock = SimulationClock(start: start)
        clock.followWallClock(rate: 3_600)
        try await Task.sleep(for: .milliseconds(200))
        let elapsed = clock.now.timeIntervalSince(start)
        #expect(elapsed >= 600, "200 ms at 3,600× is at least 12 simulated minutes")
        clock.set(start)
        #expect(!clock.isFollowingWallClock)
        #expect(clock.now >= start.addingTimeInterval(600))
    }

    @Test("sandbox durations follow Apple's table")
    func sandboxDurationsFollowApplesTable() {
        #expect(SimulatedProduct.sandboxSeconds(of: "P1W") == 180)
        #expect(SimulatedProduct.sandboxSeconds(of: "P1M") == 300)
        #expect(SimulatedProduct.sandboxSeconds(of: "P2M") == 600)
        #expect(SimulatedProduct.sandboxSeconds(of: "P3M") == 900)
        #expect(SimulatedProduct.sandboxSeconds(of: "P6M") == 1_800)
        #expect(SimulatedProduct.sandboxSeconds(of: "P1Y") == 3_600)
    }

    @Test("with sandbox durations a monthly subscription renews every five minutes")
    func sandboxPopulationRenewsEveryFiveMinutes() throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let store = SimulatedAppStore(bundleId: "com.example.sim", appAppleId: 42, environment: .sandbox)
        let scenario = Scenario(
            name: "sandbox", days: 1, customers: [ScenarioCustomer(name: "s", actions: [ScenarioAction(day: 0, subscribe: "premium.monthly")])],
            expect: [])
        let simulator = PopulationSimulator(
            scenario: scenario, start: start, store: store, signer: PopulationSimulatorTests.signer, sandboxDurations: true)
        _ = try simulator.advance(to: start.addingTimeInterval(16 * 60))
        let truth = try #require(store.subscriptions().first)
        #expect(truth.expiresDate == start.addingTimeInterval(20 * 60))
        #expect(store.allNotifications.filter { $0.notificationType == .didRenew }.count == 3)
    }
}
