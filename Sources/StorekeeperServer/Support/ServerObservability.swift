import Foundation
import Logging
import OTel
import ServiceLifecycle

/// What `serve` sets up once at its start, before any logger is made: the log format and, when
/// the environment turns it on, tracing (docs/observability.md).
public enum ServerObservability {
    /// The log formats `--log-format` accepts.
    public enum LogFormat: String, Sendable, CaseIterable {
        /// swift-log's lines on standard error (the default).
        case text
        /// One JSON object per line on standard output (``JSONLogHandler``).
        case json
    }

    /// Bootstraps the process's logging (the text format is left as it is unless tracing adds
    /// trace ids to it) and its tracing; returns the tracing exporter's service to run in the
    /// server's group, or nil when tracing is off. Call once per process.
    public static func bootstrap(
        logFormat: LogFormat, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (any Service)? {
        let tracing = ServerTracing.isEnabled(environment: environment)
        // With tracing on, every line logged inside a span names it (`trace_id`, `span_id`).
        let provider: Logger.MetadataProvider? = tracing ? OTel.makeLoggingMetadataProvider() : nil
        switch logFormat {
        case .json:
            LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, metadataProvider: provider) }, metadataProvider: provider)
        case .text:
            if tracing { LoggingSystem.bootstrap(StreamLogHandler.standardError, metadataProvider: provider) }
        }
        return try ServerTracing.bootstrap(environment: environment, logger: Logger(label: "storekeeper.tracing"))
    }
}
