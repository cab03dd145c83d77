import ArgumentParser
import Foundation
import StorekeeperServer

/// The options `serve` and `migrate` share: where the configuration and the data are.
struct ServeOptions: ParsableArguments {
    @Option(help: "The configuration file (JSON). Defaults to $STOREKEEPER_CONFIG.")
    var config: String?

    @Option(help: "Where the SQLite database lives (when no database URL is given).")
    var dataDir: String?

    @Option(help: "postgres://user:password@host:port/database for PostgreSQL; SQLite when absent.")
    var databaseURL: String?

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
            return configuration
        } catch {
            throw .usage("\(error)")
        }
    }
}
