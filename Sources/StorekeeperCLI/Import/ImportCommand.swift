import ArgumentParser

/// `storekeeper import`: brings existing customers in. Without a subcommand name (or with
/// `transactions`) it imports original transaction ids from a file, as it always has;
/// `import revenuecat` reads a RevenueCat export.
public struct ImportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import customers' full transaction histories from the App Store Server API (resumable).",
        discussion: """
            `storekeeper import FILE` (or `import transactions FILE`) imports customerId,originalTransactionId \
            lines, or --original-transaction-ids FILE; `storekeeper import revenuecat --file EXPORT.csv[.gz]` \
            imports a RevenueCat export under the customers' RevenueCat app user ids.
            """,
        subcommands: [ImportTransactionsCommand.self, ImportRevenueCatCommand.self],
        defaultSubcommand: ImportTransactionsCommand.self
    )

    public init() {}
}

/// The progress bar `import` draws on standard error.
enum ImportProgress {
    static func line(done: Int, total: Int, id: String, width: Int = 30) -> String {
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "\r[\(bar)] \(done)/\(total) \(id.prefix(24))"
    }
}
