import Foundation
import HummingbirdTesting
import Logging
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import StorekeeperTestSupport
import Synchronization
import Testing

/// Slow and silent clients must not hold the server: half-sent heads and idle connections are
/// closed, half-sent bodies get 408, and connections beyond the cap wait in the backlog.
///
/// Timing-bound: a read that waits for an answer the server owes waits minutes (it returns as
/// soon as the answer comes), and the timeouts that decide a verdict are set so that only the
/// limit under test can end the wait in time.
@Suite("Security: slow and numerous clients", .timingBound)
struct ConnectionLimitsTests {
    /// A live server on a free loopback port with `limits`, run as `storekeeper serve` runs it
    /// (HummingbirdTesting's live mode does not apply a connection cap); `body` gets the port.
    static func live(limits: ConnectionLimits, _ body: @Sendable (Int) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-limits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var (configuration, _) = try Fixture.configuration(directory: directory)
        configuration.port = 0
        configuration.connections = limits
        let settings = configuration
        try await withServerStore(.sqlite) { store in
            var logger = Logger(label: "test.limits")
            logger.logLevel = .critical
            let bound = Mutex<Int?>(nil)
            var dependencies = ServerDependencies(store: store, logger: logger, runsInboxWorker: false)
            dependencies.onServerRunning = { port in bound.withLock { $0 = port } }
            let app = try buildApplication(configuration: settings, dependencies: dependencies)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await app.runService() }
                // Up to two minutes to start: a loaded machine is slow, a broken start still ends.
                var port: Int?
                for _ in 0..<2_400 where port == nil {
                    try await Task.sleep(for: .milliseconds(50))
                    port = bound.withLock { $0 }
                }
                defer { group.cancelAll() }
                try await body(try #require(port, "the server did not start"))
            }
        }
    }

    @Test("a half-sent body gets 408 once the body timeout passes")
    func halfSentBody() async throws {
        try await Self.live(limits: ConnectionLimits(idleTimeoutSeconds: 600, bodyTimeoutSeconds: 1, headTimeoutSeconds: 600)) { port in
            // Only the body timeout can answer within the read's two minutes.
            let connection = try RawConnection(port: port, readTimeout: RawConnection.patientSeconds)
            connection.send(
                "POST /v1/apps/alpha/notifications HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"signedPayload\":\""
            )
            let answer = await connection.readSome()
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(80))")
            #expect(answer.contains("request_timeout"))
        }
    }

    @Test("a half-sent head and an idle connection are closed by the idle timeout")
    func idleConnectionsClosed() async throws {
        try await Self.live(limits: ConnectionLimits(idleTimeoutSeconds: 1, bodyTimeoutSeconds: 5, headTimeoutSeconds: 600)) { port in
            // Only the idle timeout can close them within the reads' two minutes.
            let silent = try RawConnection(port: port, readTimeout: RawConnection.patientSeconds)
            let halfHead = try RawConnection(port: port, readTimeout: RawConnection.patientSeconds)
            halfHead.send("GET /health HTTP/1.1\r\nHost: loc")
            let first = await silent.readUntilClosed()
            let second = await halfHead.readUntilClosed()
            #expect(first.closed && second.closed)
        }
    }

    @Test("connections beyond the cap are not served until another closes")
    func connectionCap() async throws {
        try await Self.live(limits: ConnectionLimits(maximumConnections: 3, idleTimeoutSeconds: 60, bodyTimeoutSeconds: 5)) { port in
            let request = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            // Kept-alive connections, each served once, until one is not served: the cap. The
            // first is waited for patiently and measures how long an answer takes under the
            // machine's load now; a later one counts as not served after twenty times that (at
            // least 5 s). A served one judged too soon only makes the test wait for it below.
            let clock = ContinuousClock()
            let first = try RawConnection(port: port, readTimeout: RawConnection.patientSeconds)
            let started = clock.now
            first.send(request)
            try #require(await first.readSome().hasPrefix("HTTP/1.1 200"), "the first connection was not served")
            let patience = max(5, Int(((clock.now - started) * 20).components.seconds) + 1)
            var open: [RawConnection] = [first]
            var blocked: RawConnection?
            for _ in 1..<6 {
                let connection = try RawConnection(port: port, readTimeout: patience)
                connection.send(request)
                if await connection.readSome().hasPrefix("HTTP/1.1 200") {
                    open.append(connection)
                } else {
                    blocked = connection
                    break
                }
            }
            let waiting = try #require(blocked, "six connections were served with a cap of three")
            #expect(open.count <= 3)
            open.removeFirst()
            var answer = ""
            let reads = RawConnection.patientSeconds / patience + 1
            for _ in 0..<reads where answer.isEmpty { answer = await waiting.readSome() }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "the waiting connection was not served once another closed")
        }
    }
}
