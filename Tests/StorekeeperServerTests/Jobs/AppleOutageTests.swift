import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import SubscriptionEngine
import Synchronization
import Testing

/// Apple's App Store Server API away for a while — 500s, 429s with `Retry-After`, timeouts and
/// garbled JSON in turn, as the real client reports them after its own retries — while
/// notifications keep getting lost: the jobs back off (never sooner than `Retry-After`), none is
/// given up, and once Apple answers again every state converges to Apple's truth.
@Suite("Reconciliation while Apple is away")
struct AppleOutageTests {
    /// FakeApple's answers behind a window in which every call fails, each kind of failure in turn.
    final class Outage: Sendable {
        let window: Range<Date>
        private let failures = Mutex([String: Int]())
        private let notBefore = Mutex<Date?>(nil)
        let callsTooSoon = Mutex([String]())

        init(window: Range<Date>) { self.window = window }

        var failureCounts: [String: Int] { failures.withLock { $0 } }

        /// Throws the next failure while the window is open (and records calls that came before
        /// the `Retry-After` of the last 429).
        func check(_ call: String, now: Date) throws {
            guard window.contains(now) else { return }
            let turn = failures.withLock { counts -> Int in
                counts[call, default: 0] += 1
                return counts.values.reduce(0, +)
            }
            if let asked = notBefore.withLock({ $0 }), now < asked {
                callsTooSoon.withLock { $0.append("\(call) at \(now), Retry-After said \(asked)") }
            }
            switch turn % 4 {
            case 0:
                throw AppStoreServerAPIError(.apiError, "Apple answered 500", httpStatus: 500, attempts: 4)
            case 1:
                let retryAfter = now.addingTimeInterval(3 * 3_600)
                notBefore.withLock { $0 = retryAfter }
                throw AppStoreServerAPIError(.retryAfterTooLong, "Apple asked to wait", httpStatus: 429, retryAfter: retryAfter, attempts: 1)
            case 2:
                throw AppStoreServerAPIError(.transport, "the request timed out", attempts: 4)
            default:
                throw AppStoreServerAPIError(.malformedResponse, "the body is not JSON: {\"data\":[", httpStatus: 200, attempts: 1)
            }
        }

        /// `fake` with its calls to Apple behind the outage.
        func wrap(_ fake: AppStoreServerAPIFake, clock: TestClock) -> AppStoreServerAPIFake {
            var wrapped = fake
            wrapped.getAllSubscriptionStatusesHandler = { [self] chain, statuses in
                try check("statuses \(chain)", now: clock.now)
                return try await fake.getAllSubscriptionStatusesHandler(chain, statuses)
            }
            wrapped.getRefundHistoryHandler = { [self] chain, revision in
                try check("refunds \(chain)", now: clock.now)
                return try await fake.getRefundHistoryHandler(chain, revision)
            }
            wrapped.getNotificationHistoryHandler = { [self] token, request in
                try check("history", now: clock.now)
                return try await fake.getNotificationHistoryHandler(token, request)
            }
            return wrapped
        }
    }

    @Test("Apple away for two days: backoff, no job given up, every state converges afterwards", arguments: [ServerBackend.sqlite])
    func convergesAfterAppleOutage(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let reconciliation = ReconciliationRun(harness)
            let outage = Outage(window: Fixture.t0.addingTimeInterval(29 * Fixture.day)..<Fixture.t0.addingTimeInterval(31 * Fixture.day))
            try await reconciliation.advance(every: 3_600, through: outage.wrap(reconciliation.apple.client, clock: harness.clock))
            let failures = outage.failureCounts
            #expect(failures.values.reduce(0, +) >= 4, "the outage met no call: \(failures)")
            #expect(outage.callsTooSoon.withLock { $0 }.isEmpty, "\(outage.callsTooSoon.withLock { $0.prefix(3) })")
            // Backoff: over two days of hourly passes, the app's calls wait for each other (at
            // most one try an hour once the wait has grown), not one try per job per pass.
            #expect(failures.values.reduce(0, +) <= 60, "\(failures)")
            print("Apple away two days (\(backend)): \(failures.values.reduce(0, +)) calls met the outage: \(failures)")

            var givenUp: [String] = []
            let kinds: [JobKind] = [.refreshSubscription, .refundCheck, .refundSweep, .notificationSweep, .planLooks]
            for kind in kinds {
                for job in try await harness.store.jobs(appId: "alpha", kind: kind.rawValue, limit: 100_000) where job.state == .failed {
                    givenUp.append("\(kind) \(job.idempotencyKey): \(job.lastError ?? "")")
                }
            }
            #expect(givenUp.isEmpty, "\(givenUp.prefix(5))")

            let mismatches = try await reconciliation.answers(client).filter { $0.status != $0.truth.status.rawValue }.map {
                "\($0.subscriber.chain) \($0.subscriber.scenario): \($0.status ?? "none") vs \($0.truth.status)"
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }
}
