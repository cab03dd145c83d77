import Foundation
import StorekeeperStore
import StorekeeperTestSupport
import Testing

@testable import StorekeeperInbox
@testable import StorekeeperServer

/// The door first: while notifications arrive in a burst the inbox worker waits before its
/// next claim, never for a notification arriving alone and never past the limit.
///
/// Timing-bound: the live drain's quiet time is set from a POST round trip it measures.
@Suite("Processing paced by arrivals", .timingBound)
struct InboxPacingTests {
    static let t0 = ContinuousClock.now

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(milliseconds)) }

    @Test("a notification alone is never held; a burst holds the next claim until it pauses")
    func burstHoldsUntilPause() {
        var pace = ArrivalPace(quiet: .milliseconds(20), limit: .seconds(1))
        #expect(pace.holdsUntil(Self.at(0)) == nil)
        pace.arrived(at: Self.at(0))
        #expect(pace.holdsUntil(Self.at(1)) == nil)
        pace.arrived(at: Self.at(5))
        // Two within 20 ms: held until 20 ms after the one before the last (the pair's start).
        #expect(pace.holdsUntil(Self.at(6)) == Self.at(20))
        pace.arrived(at: Self.at(15))
        #expect(pace.holdsUntil(Self.at(16)) == Self.at(25))
        // Arrivals paused: go on.
        #expect(pace.holdsUntil(Self.at(25)) == nil)
        #expect(pace.holdsUntil(Self.at(40)) == nil)
        // A stream one every 50 ms is never a burst.
        var slow = ArrivalPace(quiet: .milliseconds(20), limit: .seconds(1))
        for step in 0..<10 {
            slow.arrived(at: Self.at(step * 50))
            #expect(slow.holdsUntil(Self.at(step * 50 + 1)) == nil)
        }
    }

    @Test("a stream that never pauses holds no notification past the limit after the oldest waiting one arrived")
    func limitBoundsTheWait() {
        var pace = ArrivalPace(quiet: .milliseconds(20), limit: .milliseconds(100))
        for millisecond in 0..<300 {
            pace.arrived(at: Self.at(millisecond))
            let held = pace.holdsUntil(Self.at(millisecond))
            if millisecond == 0 {
                #expect(held == nil)
            } else if millisecond < 100 {
                #expect(held.map { $0 <= Self.at(100) } == true)
            } else {
                #expect(held == nil)
            }
        }
        // A claim that found nothing (it started after the last arrival) starts the count again.
        pace.emptied(claimStartedAt: Self.at(300))
        #expect(pace.waitingSince == nil)
        pace.arrived(at: Self.at(301))
        pace.arrived(at: Self.at(302))
        #expect(pace.holdsUntil(Self.at(303)) == Self.at(321))
        // One that started before the last arrival may have missed it: the count goes on.
        pace.emptied(claimStartedAt: Self.at(301))
        #expect(pace.waitingSince == Self.at(301))
    }

    @Test("a zero quiet time never holds")
    func zeroQuietNeverHolds() {
        var pace = ArrivalPace(quiet: .zero, limit: .seconds(1))
        for millisecond in 0..<10 { pace.arrived(at: Self.at(millisecond)) }
        #expect(pace.holdsUntil(Self.at(10)) == nil)
    }

    @Test("the worker's drain waits for a burst to pause before it claims, and takes a lone notification at once")
    func drainWaitsForBurst() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            let crowd = try NotificationFlowTests.crowd(harness.ca)
            // A lone arrival under a quiet time of ten minutes: taken at once (a hold would
            // outlast the two minutes allowed).
            let alone = InboxSignal(quiet: .seconds(600), limit: .seconds(600))
            let posted = ContinuousClock.now
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: crowd[0].steps[0]).status == 200)
            let roundTrip = posted.duration(to: .now)
            await alone.notify()
            let processor = harness.processor
            #expect(try await Self.within(seconds: 120) { try await processor.drain(pacing: alone) } == 1)

            // A burst of two under a quiet time of 3 s, or of twenty round trips of the POST just
            // measured when the machine is that slow: nothing is claimed until it paused (the
            // hold runs from the burst's first arrival, whatever the second POST took).
            let quiet = max(.seconds(3), roundTrip * 20)
            let burst = InboxSignal(quiet: quiet, limit: max(.seconds(60), quiet * 4))
            let firstArrival = ContinuousClock.now
            for member in crowd[1...2] {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: member.steps[0]).status == 200)
                await burst.notify()
            }
            let draining = Task { try await processor.drain(pacing: burst) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.store.pendingCount() == 2)
            #expect(try await draining.value == 2)
            #expect(firstArrival.duration(to: .now) >= quiet)

            // A stream that does not pause is held no longer than the limit.
            let stream = InboxSignal(quiet: .seconds(600), limit: .milliseconds(200))
            for member in crowd[3...4] {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: member.steps[0]).status == 200)
                await stream.notify()
            }
            #expect(try await Self.within(seconds: 120) { try await processor.drain(pacing: stream) } == 2)
        }
    }

    @Test("a repeat of a stored notification is not an arrival: replaying a genuine notification holds nothing back")
    func repeatsAreNotArrivals() async throws {
        let signal = InboxSignal(quiet: .milliseconds(20), limit: .seconds(2))
        try await ServerHarness.run(.sqlite, inboxSignal: signal) { harness, client in
            let crowd = try NotificationFlowTests.crowd(harness.ca)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: crowd[0].steps[0]).status == 200)
            #expect(await signal.arrivals == 1)
            for _ in 0..<5 {
                let repeated = try await client.call(.post, "/v1/apps/alpha/notifications", body: crowd[0].steps[0])
                #expect(repeated.status == 200 && repeated.json["duplicate"] as? Bool == true)
            }
            #expect(await signal.arrivals == 1)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: crowd[1].steps[0]).status == 200)
            #expect(await signal.arrivals == 2)
        }
    }

    /// `body`'s result, or a failure after `seconds`.
    static func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                Issue.record("gave up after \(seconds) s")
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
