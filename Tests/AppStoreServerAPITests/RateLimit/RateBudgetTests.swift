import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("Rate budgets")
struct RateBudgetTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// The largest number of instants inside any half-open window of `length` seconds.
    static func busiestWindow(_ instants: [Date], length: TimeInterval) -> Int {
        let sorted = instants.sorted()
        var best = 0
        var first = 0
        for (index, instant) in sorted.enumerated() {
            while sorted[first] <= instant.addingTimeInterval(-length) { first += 1 }
            best = max(best, index - first + 1)
        }
        return best
    }

    @Test("Apple's limits: 50, 20, 10 and 1 per second in production, a tenth in the sandbox")
    func limits() {
        let budget = RateBudget()
        #expect(budget.limit(for: .getTransactionInfo, environment: .production) == RateLimit(requests: 50, per: .seconds(1)))
        #expect(budget.limit(for: .setAppAccountToken, environment: .production) == RateLimit(requests: 20, per: .seconds(1)))
        #expect(budget.limit(for: .getRefundHistory, environment: .production) == RateLimit(requests: 10, per: .seconds(1)))
        #expect(budget.limit(for: .requestTestNotification, environment: .production) == RateLimit(requests: 1, per: .seconds(1)))
        #expect(budget.limit(for: .getTransactionInfo, environment: .sandbox) == RateLimit(requests: 5, per: .seconds(1)))
        #expect(budget.limit(for: .lookUpOrderId, environment: .sandbox) == RateLimit(requests: 1, per: .seconds(1)))
        #expect(budget.limit(for: .extendRenewalDateForAllActiveSubscribers, environment: .sandbox) == RateLimit(requests: 1, per: .seconds(10)))
    }

    @Test("limits are configurable per endpoint")
    func configurable() {
        let budget = RateBudget(
            configuration: .init(productionLimits: ["getTransactionInfo": RateLimit(requests: 7, per: .seconds(2))], sandboxFactor: 0.5))
        #expect(budget.limit(for: .getTransactionInfo, environment: .production) == RateLimit(requests: 7, per: .seconds(2)))
        #expect(budget.limit(for: .getTransactionInfo, environment: .sandbox) == RateLimit(requests: 1, per: .seconds(1)))
        #expect(budget.limit(for: .getRefundHistory, environment: .sandbox) == RateLimit(requests: 5, per: .seconds(1)))
    }

    @Test("reservations never put more than the limit in any window, and allow a burst up to it")
    func reservations() async {
        let budget = RateBudget()
        var slots: [Date] = []
        for _ in 0..<125 {
            slots.append(await budget.reserve(.getTransactionInfo, bundleId: "a", environment: .production, now: Self.start))
        }
        #expect(slots.prefix(50).allSatisfy { $0 == Self.start })
        #expect(slots[50] == Self.start.addingTimeInterval(1))
        #expect(slots[124] == Self.start.addingTimeInterval(2))
        #expect(Self.busiestWindow(slots, length: 1) == 50)
    }

    @Test("apps, environments and endpoints have separate budgets")
    func separateBudgets() async {
        let budget = RateBudget()
        _ = await budget.reserve(.requestTestNotification, bundleId: "a", environment: .production, now: Self.start)
        #expect(
            await budget.reserve(.requestTestNotification, bundleId: "a", environment: .production, now: Self.start)
                == Self.start.addingTimeInterval(1))
        #expect(await budget.reserve(.requestTestNotification, bundleId: "b", environment: .production, now: Self.start) == Self.start)
        #expect(await budget.reserve(.requestTestNotification, bundleId: "a", environment: .sandbox, now: Self.start) == Self.start)
        #expect(await budget.reserve(.getTestNotificationStatus, bundleId: "a", environment: .production, now: Self.start) == Self.start)
    }

    @Test("a burst of concurrent requests through two clients sharing one budget stays within it")
    func concurrentBurst() async throws {
        let clock = TestAPIClock(now: Self.start, mode: .manual)
        let budget = RateBudget()
        let transport = ScriptedTransport(ordered: false)
        let total = 60
        for _ in 0..<total {
            await transport.expect("GET", "/inApps/v2/refund/lookup/1", respond: .json(200, #"{"hasMore":false}"#))
        }
        let first = try ClientHarness(clock: clock, budget: budget, transport: transport)
        let second = try ClientHarness(clock: clock, budget: budget, transport: transport)
        let recorder = SendRecorder()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                let client = index.isMultiple(of: 2) ? first.client : second.client
                group.addTask {
                    _ = try await client.getRefundHistory(transactionId: "1", revision: nil)
                    await recorder.record(clock.now())
                }
            }
            group.addTask {
                // Drive virtual time: advance only when every unfinished request is asleep, so
                // each one is sent and recorded at the instant it was woken.
                var rounds = 0
                while rounds < 1_000_000 {
                    rounds += 1
                    let done = await recorder.count
                    if done == total { break }
                    if clock.pendingSleepers == total - done {
                        clock.advanceToNextDeadline()
                    } else {
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }

        let sent = await recorder.instants
        #expect(sent.count == total)
        #expect(Self.busiestWindow(sent, length: 1) <= 10)
        #expect(await transport.requests.count == total)
        #expect(clock.now() >= Self.start.addingTimeInterval(5))
        #expect(clock.now() < Self.start.addingTimeInterval(6.5))
    }
}

/// Collects the instants requests completed at.
actor SendRecorder {
    private(set) var instants: [Date] = []
    var count: Int { instants.count }

    func record(_ instant: Date) {
        instants.append(instant)
    }
}
