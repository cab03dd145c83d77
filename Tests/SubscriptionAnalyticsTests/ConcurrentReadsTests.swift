import Synchronization
import Testing

@testable import SubscriptionAnalytics

/// The figure reads that run a few at once (groups of a breakdown, cohorts) keep their order,
/// their bound, and their first failure.
@Suite("Analytics: reads a few at once")
struct ConcurrentReadsTests {
    struct Failure: Error {}

    @Test("results come in the elements' order, never more than the width run at once")
    func orderAndWidth() async throws {
        let running = Mutex((now: 0, most: 0))
        let results = try await Array(0..<50).concurrentMap(width: 4) { value in
            running.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            try await Task.sleep(for: .milliseconds(Double((value * 7) % 5)))
            running.withLock { $0.now -= 1 }
            return value * 2
        }
        #expect(results == Array(0..<50).map { $0 * 2 })
        #expect(running.withLock { $0.most } <= 4)
        #expect(running.withLock { $0.most } > 1, "they overlap")
        #expect(try await [Int]().concurrentMap(width: 4) { $0 }.isEmpty)
        #expect(try await [1, 2].concurrentMap(width: 0) { $0 + 1 } == [2, 3], "a width below one reads one at a time")
    }

    @Test("a failure is thrown and the reads still running are cancelled")
    func failure() async throws {
        await #expect(throws: Failure.self) {
            _ = try await Array(0..<20).concurrentMap(width: 3) { value in
                if value == 5 { throw Failure() }
                try await Task.sleep(for: .milliseconds(1))
                return value
            }
        }
    }
}
