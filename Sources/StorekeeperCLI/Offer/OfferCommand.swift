import ArgumentParser

/// `storekeeper offer`: sign promotional offers for StoreKit.
struct OfferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer",
        abstract: "Sign promotional offers with an App Store Connect In-App Purchase key.",
        subcommands: [OfferSignCommand.self]
    )
}
