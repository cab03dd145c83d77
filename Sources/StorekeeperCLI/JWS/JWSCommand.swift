import ArgumentParser

/// `storekeeper jws`: verify, sign and inspect StoreKit 2 signed data.
struct JWSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Verify and sign StoreKit 2 signed data (transactions, renewal infos, notifications, app transactions).",
        subcommands: [JWSVerifyCommand.self, JWSSignCommand.self]
    )
}
