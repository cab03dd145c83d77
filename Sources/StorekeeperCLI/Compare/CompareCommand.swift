import ArgumentParser

/// `storekeeper compare …`: checks Storekeeper's view of customers against another system's.
public struct CompareCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare customers' entitlements in Storekeeper with another system's.",
        subcommands: [CompareRevenueCatCommand.self]
    )

    public init() {}
}
