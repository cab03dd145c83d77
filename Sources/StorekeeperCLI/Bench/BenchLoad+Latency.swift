import Foundation
import NIOHTTP1

/// Requests timed one by one: how many, how fast, and the latency percentiles.
struct LatencySummary: Encodable, Sendable {
    var requests: Int
    var failures: Int
    var seconds: Double
    var perSecond: Double
    var p50Milliseconds: Double
    var p99Milliseconds: Double
    var maxMilliseconds: Double

    init(latencies: [Double], failures: Int, duration: Duration) {
        let sorted = latencies.sorted()
        requests = latencies.count
        self.failures = failures
        seconds = BenchLoad.seconds(duration)
        perSecond = BenchLoad.rate(latencies.count, duration)
        p50Milliseconds = Self.percentile(0.5, of: sorted)
        p99Milliseconds = Self.percentile(0.99, of: sorted)
        maxMilliseconds = Self.percentile(1, of: sorted)
    }

    /// The nearest-rank percentile `p` (0 to 1) of `sorted` (ascending), to three decimals; 0
    /// when there is none.
    static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let value = sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        return (value * 1000).rounded() / 1000
    }
}

extension BenchLoad {
    /// Sends `count` GETs of `path(index)` on `concurrency` workers, timing each; a request that
    /// throws or is not answered 200 counts as a failure (its time is kept too).
    func timedGets(count: Int, key: String?, _ path: @escaping @Sendable (Int) -> String) async -> LatencySummary {
        let clock = ContinuousClock()
        let began = clock.now
        let results = await withTaskGroup(of: (latencies: [Double], failures: Int).self) { group in
            let headers = Self.authorization(key)
            for worker in 0..<min(concurrency, max(count, 1)) {
                group.addTask { [connection = connections[worker], concurrency] in
                    var latencies: [Double] = []
                    var failures = 0
                    for index in stride(from: worker, to: count, by: concurrency) {
                        let sent = clock.now
                        let status = try? await connection.send(.GET, path(index), headers: headers, timeout: .seconds(60)).status
                        latencies.append(Self.seconds(clock.now - sent) * 1000)
                        if status != 200 { failures += 1 }
                    }
                    return (latencies, failures)
                }
            }
            return await group.reduce(into: (latencies: [Double](), failures: 0)) {
                $0.latencies += $1.latencies
                $0.failures += $1.failures
            }
        }
        return LatencySummary(latencies: results.latencies, failures: results.failures, duration: clock.now - began)
    }
}
