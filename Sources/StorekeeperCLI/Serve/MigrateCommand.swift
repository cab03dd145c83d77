import ArgumentParser
import Foundation
import Logging
import StorekeeperStore

/// `storekeeper migrate`: brings the database's schema up to date and prints the version.
public struct MigrateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or update the database schema (the server also does this at start)."
    )

    @OptionGroup var options: ServeOptions

    @Flag(help: "Print what would run (each step, the tables it touches, their sizes and what waits) and change nothing.")
    var plan = false

    public init() {}

    public func run() async throws {
        let configuration = try options.configuration()
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw CLIFailure.usage("\(error)")
        }
        var logger = Logger(label: "storekeeper.migrate")
        logger.logLevel = .warning
        if plan {
            if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
                // Opening it would make it.
                print("\(location.redactedDescription): no database yet: the migration creates it (schema version \(SQLStore.latestSchemaVersion))")
                print("Nothing was changed (--plan).")
                return
            }
            let planned = try await SQLStore.withStore(location, logger: logger, migrate: false) { try await $0.migrationPlan() }
            print(MigrationPlanText.render(planned, database: location.redactedDescription))
            return
        }
        let (applied, remaining) = try await SQLStore.withStore(location, logger: logger, migrate: false) { store in
            for warning in try await store.checkDatabase() {
                FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
            }
            let applied = try await store.migrate(scope: configuration.migrations)
            return (applied, try await store.migrationPlan().steps.map(\.version))
        }
        print(
            "\(location.redactedDescription): " + (applied.isEmpty ? "nothing to apply" : "applied \(applied)")
                + (remaining.isEmpty
                    ? "; schema version \(SQLStore.latestSchemaVersion), up to date"
                    : "; still to apply: \(remaining), which remove what the previous version reads: run `storekeeper migrate` "
                        + "once every server runs this version"))
    }
}
