import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP side of `storekeeper bench server`: concurrent clients against one server, each
/// on its own keep-alive connection (``BenchConnection``).
struct BenchLoad: Sendable {
    let connections: [BenchConnection]
    let key: String

    var concurrency: Int { connections.count }

    /// Opens `concurrency` connections to the server on `port`.
    static func connect(port: Int, key: String, concurrency: Int) async throws -> BenchLoad {
        var connections: [BenchConnection] = []
        for _ in 0..<concurrency { connections.append(try await BenchConnection.connect(host: "127.0.0.1", port: port)) }
        return BenchLoad(connections: connections, key: key)
    }

    func close() async {
        for connection in connections { await connection.close() }
    }

    /// POSTs every body, waits for the inbox to empty, then reads statuses; times each phase.
    func measure(bodies: [String], chains: [String], reads: Int, database: String) async throws -> ServerBenchmark.Report {
        let payloads = bodies.map { ByteBuffer(string: $0) }
        let path = "/v1/apps/\(ServerBenchmark.appId)/notifications"
        let clock = ContinuousClock()
        let start = clock.now
        let startCPU = Self.processCPUSeconds()
        let postFailures = await concurrently(count: bodies.count) { index, connection in
            try await connection.send(.POST, path, headers: [("Content-Type", "application/json")], body: payloads[index]).status == 200
        }
        let ingest = start.duration(to: clock.now)
        while true {
            let health = try await send(.GET, "/health")
            guard health.status == 200 || health.status == 503 else {
                throw ServerBenchmark.Failure(description: "/health answered \(health.status)")
            }
            if (health.json["pendingNotifications"] as? String) == "0" { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let process = start.duration(to: clock.now)
        let cpu = Self.processCPUSeconds() - startCPU
        // The counter moves just after the commit that empties the inbox: give it a moment.
        var processed = try await processedCount()
        for _ in 0..<100 where processed < bodies.count {
            try await Task.sleep(for: .milliseconds(20))
            processed = try await processedCount()
        }
        let readStart = clock.now
        let authorization = Self.authorization(key)
        let readFailures = await concurrently(count: reads) { index, connection in
            let path = "/v1/apps/\(ServerBenchmark.appId)/subscriptions/\(chains[index % chains.count])"
            return try await connection.send(.GET, path, headers: authorization).status == 200
        }
        let read = readStart.duration(to: clock.now)
        let healthStart = clock.now
        let healthFailures = await concurrently(count: reads) { _, connection in try await connection.send(.GET, "/health").status == 200 }
        let health = healthStart.duration(to: clock.now)
        return ServerBenchmark.Report(
            database: database, notifications: bodies.count,
            ingestSeconds: Self.seconds(ingest), ingestedPerSecond: Self.rate(bodies.count, ingest),
            processSeconds: Self.seconds(process), processedPerSecond: Self.rate(bodies.count, process),
            cpuMillisecondsPerNotification: (cpu * 1000 / Double(max(bodies.count, 1)) * 1000).rounded() / 1000,
            reads: reads, readSeconds: Self.seconds(read), readsPerSecond: Self.rate(reads, read), healthPerSecond: Self.rate(reads, health),
            concurrency: concurrency, failures: postFailures + readFailures + healthFailures + max(0, bodies.count - processed))
    }

    /// The CPU time (user and system, every thread) this process has used so far.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }

    /// Runs `count` operations on `concurrency` workers, each on its own connection; returns
    /// how many failed or threw.
    func concurrently(count: Int, _ operation: @escaping @Sendable (Int, BenchConnection) async throws -> Bool) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<min(concurrency, max(count, 1)) {
                group.addTask { [connection = connections[worker], concurrency] in
                    var failures = 0
                    for index in stride(from: worker, to: count, by: concurrency) {
                        if Task.isCancelled { return failures + 1 }
                        if (try? await operation(index, connection)) != true { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
    }

    /// The server's count of notifications processed (not rejected, not duplicate), from `/metrics`.
    func processedCount() async throws -> Int {
        let metrics = try await send(.GET, "/metrics")
        let prefix = "storekeeper_notifications_processed_total{state=\"processed\"}"
        for line in metrics.text.split(separator: "\n") where line.hasPrefix(prefix) {
            return Int(Double(line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)) ?? 0)
        }
        return 0
    }

    /// A request on the first connection, outside the concurrent phases, with its answer's body
    /// as text and JSON.
    func send(
        _ method: HTTPMethod, _ path: String, key: String? = nil, timeout: TimeAmount = .seconds(60)
    ) async throws -> (status: Int, json: [String: Any], text: String) {
        let response = try await connections[0].send(method, path, headers: Self.authorization(key), timeout: timeout)
        let text = String(buffer: response.body)
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (response.status, json, text)
    }

    /// The header that presents `key`, if any.
    static func authorization(_ key: String?) -> [(String, String)] {
        key.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func rate(_ count: Int, _ duration: Duration) -> Double {
        let seconds = seconds(duration)
        return seconds > 0 ? (Double(count) / seconds * 10).rounded() / 10 : 0
    }
}
