import ArgumentParser
import Foundation
import Logging
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore

/// `storekeeper import revenuecat`: moves an app's customers from RevenueCat. Reads a
/// RevenueCat export (or a plain list of app user ids and transaction ids), keeps each
/// customer's RevenueCat app user id, and pulls each chain's history from Apple.
struct ImportRevenueCatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revenuecat",
        abstract: "Import the customers of a RevenueCat export under their RevenueCat app user ids (resumable).",
        discussion: """
            --file is RevenueCat's scheduled data export (CSV with a header row, ; or , delimited, gzip or not), \
            or a plain list of app_user_id,original_transaction_id[,alias1|alias2…] lines. Only app_store rows \
            are imported; each chain's history comes from Apple's App Store Server API. Finished chains are kept \
            in the progress file (default: the export's path + .progress) and skipped when the command runs \
            again. Prints a JSON summary; exits 1 when something could not be linked (run again to retry).
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The app id (from the configuration) to import into.")
    var app: String

    @Option(help: "The RevenueCat export (.csv or .csv.gz) or plain list.")
    var file: String

    @Option(help: "Where finished chains are kept between runs.")
    var progressFile: String?

    func run() async throws {
        let plan: RevenueCatImportPlan
        do {
            plan = try RevenueCatImportPlan.read(path: file)
        } catch {
            throw CLIFailure.usage(error.description)
        }
        let configuration = try options.configuration()
        let directory: AppDirectory
        let clients: AppleClients
        let location: DatabaseLocation
        do {
            directory = try AppDirectory(configuration: configuration)
            clients = try AppleClients.live(configuration: configuration)
            location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw CLIFailure.usage("\(error)")
        }
        guard directory.apps[app] != nil else { throw CLIFailure.usage("no app \(app) is configured") }
        let logger: Logger = {
            var logger = Logger(label: "storekeeper.import")
            logger.logLevel = .error
            return logger
        }()
        let progressPath = progressFile ?? file + ".progress"
        let appId = app
        let summary: RevenueCatImport.Summary
        do {
            summary = try await SQLStore.withStore(location, logger: logger) { store in
                let importer = TransactionImporter(apps: directory, store: store, clients: clients, clock: { Date() }, logger: logger)
                let work = RevenueCatImport(appId: appId, store: store, importer: importer, now: { Date() })
                return try await work.run(plan, progressFile: progressPath) { done, total, id in
                    Console.err(Data(ImportProgress.line(done: done, total: total, id: id).utf8))
                }
            }
        } catch let error as ConfigurationError {
            throw CLIFailure.usage("\(error)")
        }
        Console.err(Data("\n".utf8))
        try JSONOutput.print(summary)
        if !summary.failures.isEmpty {
            throw CLIFailure(exitCode: 1, message: "\(summary.failures.count) could not be linked; run again to retry")
        }
    }
}
