import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces for `serve`, off by default (docs/observability.md). The libraries instrument with the
/// Tracing API only; this is the one place that picks an exporter: swift-otel's OTLP/HTTP
/// exporter (protobuf, or JSON with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), configured by the
/// standard `OTEL_*` variables. With tracing off the global tracer stays the no-op one: no
/// exporter, no background task, and no trace context is stored.
public enum ServerTracing {
    /// Whether the environment turns tracing on: `OTEL_TRACES_EXPORTER` names `otlp`, or (with no
    /// exporter named) an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` keeps it off.
    public static func isEnabled(environment: [String: String]) -> Bool {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return nil }
            return text
        }
        if value("OTEL_SDK_DISABLED") == "true" { return false }
        if let exporters = value("OTEL_TRACES_EXPORTER") {
            return exporters.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "otlp" }
        }
        return value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
    }

    /// When the process's environment turns tracing on, makes the OTLP exporter, bootstraps the
    /// process's tracer with it (once per process) and returns the service that exports: run it
    /// in the server's service group, where it flushes what is left at graceful shutdown. Nil
    /// when tracing is off. Logs and metrics stay with the server's own handlers (swift-otel's
    /// are not bootstrapped); the service name is `storekeeper` unless `OTEL_SERVICE_NAME` says.
    public static func bootstrap(
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) throws -> (any Service)? {
        guard isEnabled(environment: environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "storekeeper"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        // Reads the `OTEL_*` overrides (endpoint, protocol, headers, sampler, batching).
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
