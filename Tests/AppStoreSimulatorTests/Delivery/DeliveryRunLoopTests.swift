import AppStoreModels
import AppStoreSimulator
import Foundation
import Testing

/// Delivery driven by a running simulation clock.
@Suite("Notification delivery run loop")
struct DeliveryRunLoopTests {
    typealias Support = DeliveryTestSupport

    /// Waits (up to 120 s of real time: a loaded machine can take seconds to run the loop's
    /// task) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<12_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("the loop sends what falls due as another task moves the clock, and stops when cancelled")
    func followsSteppedClock() async throws {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport)
        let clock = SimulationClock(start: Support.start)
        delivery.enqueue(Support.record(1))

        let loop = Task { await delivery.run(clock: clock, pollInterval: .milliseconds(5)) }
        #expect(await eventually { transport.posts.count == 1 })
        clock.advance(by: 30 * Support.hour)
        #expect(await eventually { transport.posts.count == 3 })
        loop.cancel()
        let report = await loop.value
        #expect(report.attempts == 3 && report.retriesScheduled == 3)
        clock.advance(by: 1_000 * Support.hour)
        try await Task.sleep(for: .milliseconds(50))
        #expect(transport.posts.count == 3)
        #expect(Support.attemptHours(store, Support.record(1).notificationUUID) == [0, 1, 13])
    }

    @Test("with a wall-clock clock, a post due in a moment is sent without waiting a full poll")
    func wakesForNextDuePost() async {
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: Support.store(), transport: transport)
        let clock = SimulationClock(start: Support.start)
        clock.followWallClock()
        delivery.enqueue(Support.record(1, at: clock.now.addingTimeInterval(0.2)))
        // A poll of ten minutes: only waking for the due post sends it within the wait.
        let loop = Task { await delivery.run(clock: clock, pollInterval: .seconds(600)) }
        #expect(await eventually { transport.posts.count == 1 })
        loop.cancel()
        #expect(await loop.value.successes == 1)
    }
}
