import ArgumentParser
import Foundation
import Logging
import StorekeeperHTTP
import StorekeeperServer
import StorekeeperStore

/// `storekeeper analytics rebuild`: builds an app's maintained figures from its ledger.
public struct AnalyticsCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Maintain the figures the analytics read.",
        subcommands: [Rebuild.self]
    )

    public init() {}

    public struct Rebuild: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "rebuild",
            abstract: "Build an app's figures from its ledger (resumable; the server also does it at start).",
            discussion: """
                The figures the metric routes read are kept as facts arrive. They are built again from \
                the ledger when the app's time zone, catalog or commission rule changed (the server does \
                so at start, in the background), or here. An interrupted build resumes where it stopped; \
                --force starts from nothing.
                """
        )

        @OptionGroup var options: ServeOptions

        @Option(help: "The app id (from the configuration).")
        var app: String

        @Option(help: "Production or Sandbox; both by default.")
        var environment: String?

        @Flag(help: "Build from nothing, even when the figures are complete.")
        var force = false

        public init() {}

        public func run() async throws {
            let configuration = try options.configuration()
            guard let app = configuration.apps.first(where: { $0.id == self.app }) else {
                throw CLIFailure.usage("no app \(self.app) in the configuration")
            }
            let environments =
                try environment.map { value in
                    guard ["Production", "Sandbox"].contains(value) else { throw CLIFailure.usage("--environment must be Production or Sandbox") }
                    return [value]
                } ?? ["Production", "Sandbox"]
            let location: DatabaseLocation
            do {
                location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
            } catch {
                throw CLIFailure.usage("\(error)")
            }
            var logger = Logger(label: "storekeeper.analytics")
            logger.logLevel = .warning
            let started = ContinuousClock.now
            let force = self.force
            try await SQLStore.withStore(location, logger: logger) { store in
                try await store.migrate()
                for environment in environments {
                    try await FigureRebuild.run(app: app, environment: environment, store: store, force: force) { done, total in
                        Console.err(Data("\r\(environment): \(done)/\(total) chains".utf8))
                    }
                    Console.err(Data("\r\(environment): complete\u{1B}[K\n".utf8))
                }
            }
            Console.out(Data("figures of \(app.id) built in \(ContinuousClock.now - started)\n".utf8))
        }
    }
}
