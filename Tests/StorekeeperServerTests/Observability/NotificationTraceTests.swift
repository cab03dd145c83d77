import AppStoreTestSigning
import Foundation
import Hummingbird
import Logging
import NIOCore
import SQLKit
import StorekeeperTestSupport
import Synchronization
import Testing

@testable import StorekeeperStore

/// One trace per notification (docs/observability.md), seen from outside: the built
/// `storekeeper serve` exports to a local OTLP receiver over OTLP/HTTP JSON, a webhook
/// destination points at a local receiver, and one signed notification is posted.
@Suite("Traces of a notification", .serialized, .heavyLoad, .tags(.slow), .skippedWhenFast)
struct NotificationTraceTests {
    @Test("one trace covers the POST, the inbox, verification, the intake's transaction and the webhook delivery; no secret is exported")
    func oneTracePerNotification() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let run = try await TracedRun.start(tracing: true)
        defer { run.cleanUp() }
        let (uuid, signedPayload) = try await run.postNotification()
        // Spans leave the server in batches: wait until the delivery's span arrived.
        let exported = await run.server.waitFor(seconds: 180) {
            run.receiver.distinct >= 1 && run.collector.spans().contains { $0.name == "storekeeper.webhook.deliver" }
        }
        #expect(await run.server.stop(), "the server did not stop gracefully")
        try #require(exported, "the delivery's span was not exported")
        let spans = run.collector.spans()

        let post = try #require(spans.first { $0.name == "POST /v1/apps/{appId}/notifications" })
        let stored = try #require(spans.first { $0.name == "storekeeper.inbox.store" })
        let verified = try #require(spans.first { $0.name == "storekeeper.inbox.verify" })
        let processed = try #require(spans.first { $0.name == "storekeeper.inbox.process" })
        let transaction = try #require(spans.first { $0.name == "storekeeper.intake.transaction" })
        let deliveries = spans.filter { $0.name == "storekeeper.webhook.deliver" }
        // One trace from Apple's POST to each delivery.
        for span in [stored, verified, processed, transaction] + deliveries {
            #expect(span.traceId == post.traceId, "\(span.name) is in another trace")
        }
        #expect(post.parentSpanId.isEmpty)
        #expect(stored.parentSpanId == post.spanId && verified.parentSpanId == post.spanId && processed.parentSpanId == post.spanId)
        #expect(transaction.parentSpanId == processed.spanId)
        for delivery in deliveries {
            #expect(delivery.parentSpanId == processed.spanId)
            #expect(delivery.attributes["storekeeper.destination"] == "backend")
            #expect(delivery.attributes["http.response.status_code"] == "200")
            #expect(delivery.attributes["storekeeper.outcome"] == "delivered")
        }
        for span in [post, stored, verified, processed, transaction] {
            #expect(span.attributes["storekeeper.app"] == "alpha", "\(span.name)")
            #expect(span.attributes["apple.notification_uuid"] == uuid.lowercased(), "\(span.name)")
            #expect(span.attributes["apple.notification_type"] == "SUBSCRIBED", "\(span.name)")
        }
        #expect(processed.attributes["storekeeper.outcome"] == "processed")
        #expect(run.collector.serviceNames() == ["storekeeper"])
        // `STOREKEEPER_LOG_FORMAT=json`: every line the server wrote is one JSON object (the
        // configuration file's mode 0644 draws at least one warning).
        let log = try String(contentsOf: run.directory.appendingPathComponent("server.log"), encoding: .utf8)
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["message"] is String && object?["timestamp"] is String, "\(line)")
        }

        // The rows carry the trace's context.
        let (inboxContexts, eventContexts) = try await run.storedTraceContexts()
        #expect(inboxContexts.count == 1 && inboxContexts.allSatisfy { $0.contains(post.traceIdHex) })
        #expect(!eventContexts.isEmpty && eventContexts.allSatisfy { $0.contains(post.traceIdHex) })

        // Nothing secret left the server: keys, the shared secret, the webhook's secret, the
        // signed payload or any of its parts, an authorization value.
        let bytes = run.collector.rawBodies()
        let secrets =
            [Fixture.alphaKey, Fixture.alphaAdmin, "alpha-shared-secret", TracedRun.webhookSecret, "Bearer", signedPayload]
            + signedPayload.split(separator: ".").map(String.init)
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the export holds a secret (\(secret.prefix(12))…)")
        }
    }

    @Test("with tracing off (OTEL_TRACES_EXPORTER=none) nothing is exported and no row stores a trace context")
    func offExportsNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.binary.path), "build the storekeeper product first")
        let run = try await TracedRun.start(tracing: false)
        defer { run.cleanUp() }
        _ = try await run.postNotification()
        let delivered = await run.server.waitFor(seconds: 180) { run.receiver.distinct >= 1 }
        #expect(await run.server.stop(), "the server did not stop gracefully")
        #expect(delivered, "the webhook was not delivered")
        #expect(run.collector.requests() == 0, "spans were exported with tracing off")
        let (inboxContexts, eventContexts) = try await run.storedTraceContexts()
        #expect(inboxContexts.isEmpty && eventContexts.isEmpty)
    }
}

/// A `storekeeper serve` child process with a webhook receiver and an OTLP collector on loopback.
struct TracedRun {
    static let webhookSecret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    let directory: URL
    let data: URL
    let ca: TestCertificateAuthority
    let receiver: LoopbackWebhookReceiver
    let collector: OTLPCollector
    let server: ServerProcess

    /// Starts the receivers and the server; `tracing` false names the collector but turns the
    /// exporter off, so that nothing but the switch differs.
    static func start(tracing: Bool) async throws -> TracedRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-trace-\(UUID().uuidString)")
        let (_, ca) = try Fixture.configuration(directory: directory)
        let receiver = try await LoopbackWebhookReceiver(delay: .zero)
        let config = directory.appendingPathComponent("config.json")
        try receiver.point(configuration: config)
        let collector = try await OTLPCollector()
        let data = directory.appendingPathComponent("data")
        var environment = [
            "PATH": "/usr/bin:/bin", "STOREKEEPER_LOG_LEVEL": "warning",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
        ]
        // The traced server logs JSON (STOREKEEPER_LOG_FORMAT) to a file the test reads.
        if tracing { environment["STOREKEEPER_LOG_FORMAT"] = "json" } else { environment["OTEL_TRACES_EXPORTER"] = "none" }
        var started: ServerProcess?
        for _ in 0..<3 where started == nil {
            let port = ServerProcess.freePort()
            let log =
                tracing
                ? directory.appendingPathComponent("server.log").path
                : ProcessInfo.processInfo.environment["STOREKEEPER_TEST_SERVER_LOG"].flatMap { $0.isEmpty ? nil : $0 }
            let process = try ChildProcess(
                ServerProcess.binary.path, ["serve", "--config", config.path, "--data-dir", data.path, "--port", "\(port)"],
                environment: environment, output: log.map { .file($0) } ?? .null, errorToOutput: true)
            let server = ServerProcess(process: process, port: port)
            let up = await server.waitFor(seconds: 180) {
                guard process.isRunning else { return true }
                return await server.request("/health")?.0 == 200
            }
            if up, process.isRunning { started = server } else { server.kill() }
        }
        let server = try #require(started, "the server did not start")
        return TracedRun(directory: directory, data: data, ca: ca, receiver: receiver, collector: collector, server: server)
    }

    /// Posts one signed `SUBSCRIBED` notification; returns its UUID and signed payload.
    func postNotification() async throws -> (uuid: String, signedPayload: String) {
        let now = Date()
        let uuid = UUID().uuidString
        let transaction = try SignedData.transaction(
            id: "tr1", original: "tr1", purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60)
        let body = try SignedData.notification(
            ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, signed: now - 60, transaction: transaction,
            renewal: try SignedData.renewal(original: "tr1", autoRenew: true, signed: now - 60))
        let answer = await server.request("/v1/apps/alpha/notifications", method: "POST", body: body)
        #expect(answer?.0 == 200)
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
        return (uuid, try #require(object?["signedPayload"]))
    }

    /// The trace contexts the stopped server's inbox rows and events hold.
    func storedTraceContexts() async throws -> (inbox: [String], events: [String]) {
        var logger = Logger(label: "test.trace")
        logger.logLevel = .warning
        let path = data.appendingPathComponent(DatabaseLocation.sqliteFileName).path
        return try await SQLStore.withStore(.sqlite(path: path), logger: logger) { store in
            try await store.backend.read { db in
                let inbox = try await db.raw("SELECT trace_context FROM notification_inbox WHERE trace_context IS NOT NULL").all()
                let events = try await db.raw("SELECT trace_context FROM events WHERE trace_context IS NOT NULL").all()
                return (
                    try inbox.map { try $0.decode(column: "trace_context", as: String.self) },
                    try events.map { try $0.decode(column: "trace_context", as: String.self) }
                )
            }
        }
    }

    func cleanUp() {
        server.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// An OTLP/HTTP collector on a loopback port: keeps every body posted to `/v1/traces` (JSON,
/// `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and reads the spans out of them.
final class OTLPCollector: Sendable {
    /// A span as exported: its ids (as the JSON encodes them), name and attributes as text.
    struct Span: Sendable {
        var traceId: String
        var spanId: String
        var parentSpanId: String
        var name: String
        var attributes: [String: String]

        /// The trace id in hex, as a `traceparent` writes it.
        var traceIdHex: String {
            guard let bytes = Data(base64Encoded: traceId) else { return traceId.lowercased() }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// The bodies received.
    final class Bodies: Sendable {
        let list = Mutex<[Data]>([])
    }

    let port: Int
    private let received = Bodies()
    private let server: LoopbackServer

    init() async throws {
        var logger = Logger(label: "test.otlp")
        logger.logLevel = .critical
        let router = Router(context: BasicRequestContext.self)
        let received = received
        router.post("/v1/traces") { request, _ in
            let buffer = try await request.body.collect(upTo: 64 << 20)
            received.list.withLock { $0.append(Data(buffer: buffer)) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        server = try await LoopbackServer(router: router, logger: logger, name: "OTLP collector")
        port = server.port
    }

    func requests() -> Int { received.list.withLock { $0.count } }

    /// Every body received, one after the other.
    func rawBodies() -> Data { received.list.withLock { $0.reduce(Data(), +) } }

    /// The `service.name` of every resource exported.
    func serviceNames() -> Set<String> {
        Set(resources().compactMap { Self.attributes($0["resource"] as? [String: Any])["service.name"] })
    }

    func spans() -> [Span] {
        resources().flatMap { resource in
            ((resource["scopeSpans"] as? [[String: Any]]) ?? []).flatMap { scope in
                ((scope["spans"] as? [[String: Any]]) ?? []).map { span in
                    Span(
                        traceId: span["traceId"] as? String ?? "", spanId: span["spanId"] as? String ?? "",
                        parentSpanId: span["parentSpanId"] as? String ?? "", name: span["name"] as? String ?? "",
                        attributes: Self.attributes(span))
                }
            }
        }
    }

    private func resources() -> [[String: Any]] {
        received.list.withLock { $0 }.flatMap { body in
            ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["resourceSpans"] as? [[String: Any]] ?? []
        }
    }

    /// An OTLP attribute list as text by key (`stringValue`, `intValue`, `boolValue`).
    private static func attributes(_ object: [String: Any]?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in (object?["attributes"] as? [[String: Any]]) ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
            if let text = value["stringValue"] as? String {
                result[key] = text
            } else if let number = value["intValue"] {
                result[key] = "\(number)"
            } else if let flag = value["boolValue"] as? Bool {
                result[key] = "\(flag)"
            }
        }
        return result
    }
}
