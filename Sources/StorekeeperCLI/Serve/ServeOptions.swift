import ArgumentParser
import Foundation
import Logging
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore

/// The options `serve` and `migrate` share: where the configuration and the data are.
struct ServeOptions: ParsableArguments {
    @Option(help: "The configuration file (JSON). Defaults to $STOREKEEPER_CONFIG.")
    var config: String?

    @Option(help: "Where the SQLite database lives (when no database URL is given).")
    var dataDir: String?

    @Option(help: "postgres://user:password@host:port/database for PostgreSQL; SQLite when absent.")
    var databaseURL: String?

    @Option(
        help: """
            postgres://… of a streaming standby of the primary: the dashboard, analytics and listings read there \
            while it keeps up. Defaults to $STOREKEEPER_READ_DATABASE_URL.
            """)
    var readDatabaseURL: String?

    @Flag(
        help: """
            Apply only the schema steps that add (a rolling deploy: servers of the previous version keep running); \
            `storekeeper migrate` applies the rest once every server runs this version.
            """)
    var expandOnly = false

    /// The configuration file named by the option or `STOREKEEPER_CONFIG`.
    func configurationFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        config ?? environment["STOREKEEPER_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The configuration: the file, then the environment, then these options.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIFailure) -> ServerConfiguration {
        do {
            var configuration = try ServerConfiguration.load(file: configurationFile(environment: environment), environment: environment)
            if let dataDir { configuration.dataDirectory = dataDir }
            if let databaseURL { configuration.databaseURL = databaseURL }
            if let readDatabaseURL { configuration.readDatabaseURL = readDatabaseURL }
            if expandOnly { configuration.migrations = .expandOnly }
            try configuration.validate()
            return configuration
        } catch {
            throw .usage("\(error)")
        }
    }
}

extension ServerConfiguration {
    /// Opens the configured database (SQLite in the data directory, or the database URL),
    /// migrated, runs `body` with it and closes it; a location that cannot be used is a usage
    /// error. Logs only warnings.
    func withStore<T: Sendable>(label: String, _ body: @Sendable (SQLStore) async throws -> T) async throws -> T {
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation.resolve(databaseURL: databaseURL, dataDirectory: dataDirectory)
        } catch {
            throw CLIFailure.usage("\(error)")
        }
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return try await SQLStore.withStore(location, logger: logger, body)
    }
}
