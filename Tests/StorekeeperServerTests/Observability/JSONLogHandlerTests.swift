import Foundation
import Logging
import OTel
import StorekeeperServer
import Synchronization
import Testing
import Tracing

@Suite("JSON logs")
struct JSONLogHandlerTests {
    /// The lines a logger wrote, as written.
    final class Lines: Sendable {
        let written = Mutex<[String]>([])
        var output: JSONLogHandler.Output { JSONLogHandler.Output { line in self.written.withLock { $0.append(line) } } }
        var all: [String] { written.withLock { $0 } }
    }

    /// Each line as a JSON object, after checking that it is exactly one line.
    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(where: \.isNewline) == nil, "not one line: \(line.debugDescription)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("one valid JSON object per line whatever the message holds: quotes, backslashes, control characters, line separators")
    func escapes() throws {
        let lines = Lines()
        var logger = Logger(label: "storekeeper.test") { JSONLogHandler(label: $0, output: lines.output) }
        logger.logLevel = .debug
        let hostile = "a \"quote\", a \\ backslash,\na newline\r\t tab, NUL \u{0} ESC \u{1B} DEL \u{7F} \u{2028}\u{2029} é 🙂 </script>"
        logger.info("\(hostile)", metadata: ["app": "alpha", "count": "\(3)", "nested": ["inner": "\u{0}x", "list": ["1", "\"2\""]]])
        logger.debug("second", metadata: ["message": "a metadata key named like a field", "\u{1}key\n": "value"])
        logger.error("third")
        let objects = try Self.objects(lines.all)
        try #require(objects.count == 3)
        #expect(objects[0]["message"] as? String == hostile)
        #expect(objects[0]["level"] as? String == "info" && objects[0]["label"] as? String == "storekeeper.test")
        #expect(objects[0]["app"] as? String == "alpha" && objects[0]["count"] as? String == "3")
        let nested = try #require(objects[0]["nested"] as? [String: Any])
        #expect(nested["inner"] as? String == "\u{0}x" && nested["list"] as? [String] == ["1", "\"2\""])
        // The four fields are never hidden by metadata.
        #expect(objects[1]["message"] as? String == "second" && objects[1]["level"] as? String == "debug")
        #expect(objects[1]["metadata.message"] as? String == "a metadata key named like a field")
        #expect(objects[1]["\u{1}key\n"] as? String == "value")
        #expect(objects[2]["level"] as? String == "error")
        // Control characters are escapes, never raw bytes.
        for line in lines.all { #expect(!line.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" }) }
        // RFC 3339 in UTC with fractional seconds.
        for object in objects {
            let timestamp = try #require(object["timestamp"] as? String)
            #expect(timestamp.hasSuffix("Z") && timestamp.contains("."))
            #expect((try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timestamp)) != nil)
        }
    }

    @Test("inside a span, each line names the trace and the span (swift-otel's metadata provider)")
    func traceIds() throws {
        var configuration = OTel.Configuration.default
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .none
        var quiet = Logger(label: "test.otel")
        quiet.logLevel = .critical
        configuration.diagnosticLogger = .custom(quiet)
        // A tracer of its own, not the process's: other suites in this process run untraced.
        let tracer = try OTel.makeTracingBackend(configuration: configuration).factory
        let lines = Lines()
        let logger = Logger(label: "storekeeper.test") { label, _ in
            JSONLogHandler(label: label, metadataProvider: OTel.makeLoggingMetadataProvider(), output: lines.output)
        }
        logger.info("outside")
        var ids: (trace: String, span: String)?
        tracer.withSpan("work") { span in
            var carrier: [String: String] = [:]
            tracer.inject(span.context, into: &carrier, using: DictionaryInjector())
            let parts = (carrier["traceparent"] ?? "").split(separator: "-").map(String.init)
            if parts.count == 4 { ids = (parts[1], parts[2]) }
            logger.info("inside")
        }
        let objects = try Self.objects(lines.all)
        try #require(objects.count == 2)
        let expected = try #require(ids)
        #expect(objects[0]["trace_id"] == nil && objects[0]["span_id"] == nil)
        #expect(objects[1]["trace_id"] as? String == expected.trace && objects[1]["span_id"] as? String == expected.span)
    }

    @Test("tracing is on when the environment names an OTLP exporter or endpoint, and off otherwise")
    func tracingSwitch() {
        #expect(!ServerTracing.isEnabled(environment: [:]))
        #expect(ServerTracing.isEnabled(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]))
        #expect(ServerTracing.isEnabled(environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"]))
        #expect(ServerTracing.isEnabled(environment: ["OTEL_TRACES_EXPORTER": "otlp"]))
        #expect(!ServerTracing.isEnabled(environment: ["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]))
        #expect(!ServerTracing.isEnabled(environment: ["OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"]))
    }

    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }
}
