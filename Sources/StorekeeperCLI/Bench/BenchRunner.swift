import Foundation

/// Runs an operation over a list of inputs from several concurrent tasks until a minimum time
/// has passed, and reports the rate. The inputs are repeated as often as needed.
struct BenchRunner {
    /// What one benchmark run measured; printed as the command's JSON output.
    struct Report: Codable, Equatable {
        var operations: Int
        var seconds: Double
        var perSecond: Double
        var threads: Int
        /// Operations whose result was not the expected one (e.g. a JWS that failed to verify).
        var failures: Int
    }

    var threads: Int
    var minimumSeconds: Double

    /// Calls `operation(i)` for i in 0..<count, cycling, from `threads` concurrent tasks, in
    /// rounds of at least one pass over the inputs per task, until `minimumSeconds` have
    /// passed. `operation` returns whether the result was the expected one.
    func run(count: Int, operation: @escaping @Sendable (Int) async -> Bool) async -> Report {
        precondition(count > 0 && threads > 0)
        let clock = ContinuousClock()
        let start = clock.now
        var operations = 0
        var failures = 0
        let batch = max(count, 256)
        repeat {
            failures += await withTaskGroup(of: Int.self) { group in
                for task in 0..<threads {
                    group.addTask {
                        var failed = 0
                        for step in 0..<batch where await !operation((step + task) % count) {
                            failed += 1
                        }
                        return failed
                    }
                }
                return await group.reduce(0, +)
            }
            operations += batch * threads
        } while (clock.now - start).seconds < minimumSeconds
        let seconds = (clock.now - start).seconds
        return Report(
            operations: operations,
            seconds: (seconds * 1000).rounded() / 1000,
            perSecond: (Double(operations) / seconds).rounded(),
            threads: threads,
            failures: failures
        )
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
