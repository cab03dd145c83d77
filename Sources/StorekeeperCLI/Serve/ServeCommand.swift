import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperServer

/// `storekeeper serve`: runs the server until SIGINT or SIGTERM, then shuts down gracefully
/// (stops accepting, finishes requests, stops the inbox worker, closes the database).
public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Storekeeper server (SQLite by default, PostgreSQL with --database-url)."
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The TCP port to listen on.")
    var port: Int?

    @Option(help: "The address to listen on.")
    var host: String?

    @Option(help: "Serve HTTPS: a PEM file with the certificate chain, leaf first (with --tls-key).")
    var tlsCertificate: String?

    @Option(help: "Serve HTTPS: a PEM file with the certificate's private key (with --tls-certificate).")
    var tlsKey: String?

    @Option(
        help: """
            text (lines on standard error, the default) or json (one JSON object per line on standard output). \
            Defaults to $STOREKEEPER_LOG_FORMAT, then the configuration's logFormat.
            """)
    var logFormat: String?

    public init() {}

    public func run() async throws {
        // A file-size limit reached (RLIMIT_FSIZE) must fail the write, which the store reports
        // as a 503 and `/health` explains, rather than kill the server with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        var configuration = try options.configuration()
        if let port { configuration.port = port }
        if let host { configuration.host = host }
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?): configuration.tls = TLSFiles(certificate: certificate, key: key)
        case (nil, nil): break
        default: throw CLIFailure.usage("--tls-certificate and --tls-key go together")
        }
        guard !configuration.apps.isEmpty else { throw CLIFailure.usage("the configuration declares no app") }
        if let logFormat { configuration.logFormat = logFormat }
        guard let format = ServerObservability.LogFormat(rawValue: configuration.logFormat?.lowercased() ?? "text") else {
            throw CLIFailure.usage("the log format must be text or json")
        }
        // Before any logger is made; tracing is on when the OTEL_* variables say (docs/observability.md).
        let telemetry: (any Service)?
        do {
            telemetry = try ServerObservability.bootstrap(logFormat: format)
        } catch {
            throw CLIFailure.usage("cannot start tracing: \(error)")
        }
        let logger = Logger(label: "storekeeper")
        for warning in SecurityWarnings.of(configuration, configurationFile: options.configurationFile()) {
            logger.warning("\(warning)")
        }
        let app: any ApplicationProtocol
        do {
            app = try await buildApplication(configuration: configuration, telemetry: telemetry)
        } catch {
            throw CLIFailure.usage("cannot start: \(error)")
        }
        try await app.runService()
    }
}
