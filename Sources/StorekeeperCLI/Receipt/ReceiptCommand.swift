import ArgumentParser

/// `storekeeper receipt`: validate and decode legacy App Store receipts offline.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Validate and decode legacy app receipts (PKCS#7) offline, answering like Apple's verifyReceipt.",
        subcommands: [ReceiptDecodeCommand.self]
    )
}
