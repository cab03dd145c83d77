import ArgumentParser

/// `storekeeper simulator …`: the App Store simulator on its own.
public struct SimulatorCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "simulator",
        abstract: "Run the App Store simulator on its own: a local App Store for testing any backend.",
        subcommands: [SimulatorServeCommand.self]
    )

    public init() {}
}
