import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Notifications poured into a running server while a fault comes and goes: eight posters send
/// each notification until it is answered 200; a 503 must carry `Retry-After` and a JSON error,
/// and anything else is recorded as unexpected. Once a third is stored the fault begins; `/health`
/// is asked why from a second later until it says; after `duration` the fault is healed and the
/// time until the first success after it is measured.
struct FaultUnderLoad {
    /// What the run saw.
    struct Report {
        var unexpected: [String]
        var refusals: Int
        var acknowledged: Int
        /// `/health` during the fault: the first answer that was not 200 (polled every 250 ms
        /// from a second in: a full disk is known only once a write has met it, and writes
        /// that fit in pages the database already has still succeed), or the last answer.
        var health: (status: Int, reason: String?)?
        /// Seconds from the heal to the first POST answered 200.
        var back: Double?
    }

    /// What the posters share.
    private final class Record: Sendable {
        let unexpected = Mutex([String]())
        let refusals = Mutex(0)
        let healedAt = Mutex<Date?>(nil)
        let firstSuccessAfterHeal = Mutex<Date?>(nil)
    }

    struct FaultDidNotStart: Error, CustomStringConvertible {
        var description: String { "a third of the notifications were never stored, so the fault never began" }
    }

    /// The posters' own connections, so that a probe of `/health` never queues behind them.
    static let posting = URLSession(configuration: .ephemeral)

    let server: ServerProcess
    let bodies: [String]

    /// A POST's status, `Retry-After` and body, or nil when nothing answered.
    static func post(port: Int, body: String) async -> (status: Int, retryAfter: String?, body: String)? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/apps/alpha/notifications")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        request.httpBody = Data(body.utf8)
        guard let (data, response) = try? await posting.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), String(decoding: data, as: UTF8.self))
    }

    func run(duration: Double, fault: @Sendable () throws -> Void, heal: @Sendable () throws -> Void) async throws -> Report {
        let count = bodies.count
        let storm = KillStormTests.Storm(count: count)
        let record = Record()
        let port = server.port
        let bodies = bodies
        var health: (Int, String?)?
        // A server that never recovers fails the test rather than hanging it.
        let deadline = Date().addingTimeInterval(duration + 180)
        try await withThrowingTaskGroup(of: Void.self) { posters in
            for _ in 0..<8 {
                posters.addTask {
                    while Date() < deadline, let index = storm.next() {
                        let answer = await Self.post(port: port, body: bodies[index])
                        switch answer?.status {
                        case 200:
                            storm.acknowledged.withLock { _ = $0.insert(index) }
                            if record.healedAt.withLock({ $0 }) != nil {
                                record.firstSuccessAfterHeal.withLock { $0 = $0 ?? Date() }
                            }
                            continue
                        case 503 where answer?.retryAfter != nil && answer?.body.contains("\"error\"") == true:
                            record.refusals.withLock { $0 += 1 }
                        default:
                            record.unexpected.withLock { $0.append("\(answer.map { "\($0.status) \($0.body.prefix(120))" } ?? "no answer")") }
                        }
                        storm.queue.withLock { $0.append(index) }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            while storm.acknowledged.withLock({ $0.count }) < count / 3 {
                guard Date() < deadline else { throw FaultDidNotStart() }
                try await Task.sleep(for: .milliseconds(5))
            }
            try fault()
            let faultEnds = Date().addingTimeInterval(duration)
            try await Task.sleep(for: .seconds(1))
            repeat {
                health = await server.request("/health").map { ($0.0, $0.1["reason"] as? String) }
                if let status = health?.0, status != 200 { break }
                try await Task.sleep(for: .milliseconds(250))
            } while Date() < faultEnds
            try await Task.sleep(for: .seconds(max(0, faultEnds.timeIntervalSinceNow)))
            try heal()
            record.healedAt.withLock { $0 = Date() }
            try await posters.waitForAll()
        }
        let back = record.healedAt.withLock { $0 }.flatMap { healed in
            record.firstSuccessAfterHeal.withLock { $0 }?.timeIntervalSince(healed)
        }
        return Report(
            unexpected: record.unexpected.withLock { $0 }, refusals: record.refusals.withLock { $0 },
            acknowledged: storm.acknowledged.withLock { $0.count }, health: health, back: back)
    }

    /// Waits for the inbox to drain, then checks that each chain's notification was processed
    /// exactly once.
    static func expectEachProcessedOnce(server: ServerProcess, chains: [String]) async {
        let drained = await server.waitFor(seconds: 60) {
            await server.request("/health")?.1["pendingNotifications"] as? String == "0"
        }
        #expect(drained, "notifications were left pending")
        var wrong: [String] = []
        for chain in chains where drained {
            let rows = await server.request("/v1/apps/alpha/notifications?originalTransactionId=\(chain)", key: Fixture.alphaKey)
            let states = ((rows?.1["notifications"] as? [[String: Any]]) ?? []).compactMap { $0["state"] as? String }
            if states.filter({ $0 == "processed" }).count != 1 { wrong.append("\(chain): \(states)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
