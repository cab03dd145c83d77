import ArgumentParser
import Foundation
import Logging
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore

/// `storekeeper import [transactions]`: pulls existing customers' transaction histories from
/// Apple into the ledger, with a progress bar on standard error and a JSON summary on standard
/// output. The default subcommand of `import`, so `storekeeper import FILE` runs it.
struct ImportTransactionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transactions",
        abstract: "Import customers' full transaction histories from the App Store Server API (resumable).",
        discussion: """
            Give either --original-transaction-ids FILE (one id per line) or FILE with \
            customerId,originalTransactionId lines. Finished ids are kept in the progress file \
            (default: the input path + .progress) and skipped when the command runs again.
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The app id (from the configuration) to import into.")
    var app: String

    @Option(help: "A file of original transaction ids, one per line.")
    var originalTransactionIds: String?

    @Option(help: "Where finished ids are kept between runs.")
    var progressFile: String?

    @Argument(help: "A file of customerId,originalTransactionId lines.")
    var file: String?

    init() {}

    func run() async throws {
        let path: String
        let withCustomers: Bool
        switch (originalTransactionIds, file) {
        case (let ids?, nil): (path, withCustomers) = (ids, false)
        case (nil, let mapped?): (path, withCustomers) = (mapped, true)
        default: throw CLIFailure.usage("give exactly one of --original-transaction-ids FILE or FILE")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CLIFailure.usage("cannot read \(path)") }
        let configuration = try options.configuration()
        let items: [TransactionImporter.Item]
        let directory: AppDirectory
        let clients: AppleClients
        let location: DatabaseLocation
        do {
            items = try TransactionImporter.items(fromText: text, withCustomers: withCustomers)
            directory = try AppDirectory(configuration: configuration)
            clients = try AppleClients.live(configuration: configuration)
            location = try DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw CLIFailure.usage("\(error)")
        }
        let logger: Logger = {
            var logger = Logger(label: "storekeeper.import")
            logger.logLevel = .warning
            return logger
        }()
        let progressPath = progressFile ?? path + ".progress"
        let appId = app
        let summary: TransactionImporter.Summary
        do {
            summary = try await SQLStore.withStore(location, logger: logger) { store in
                let importer = TransactionImporter(apps: directory, store: store, clients: clients, clock: { Date() }, logger: logger)
                return try await importer.run(appId: appId, items: items, progressFile: progressPath) { done, total, id in
                    Console.err(Data(ImportProgress.line(done: done, total: total, id: id).utf8))
                }
            }
        } catch let error as ConfigurationError {
            throw CLIFailure.usage("\(error)")
        }
        Console.err(Data("\n".utf8))
        try JSONOutput.print(summary)
        if summary.failed > 0 { throw CLIFailure(exitCode: 1, message: "\(summary.failed) ids failed; run again to retry them") }
    }
}
