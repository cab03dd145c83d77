import ArgumentParser
import Foundation

/// `storekeeper experiment FILE`: runs an experiment scenario — the server choosing each
/// arriving customer's offering, simulated devices buying through StorekeeperKit as the
/// customers react to what they are shown — then reads the experiment's results from the server
/// and checks them against the scenario's expectation.
public struct ExperimentCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: "Run an experiment scenario through the server, the simulator and StorekeeperKit, and check its results.",
        discussion: "Scenario files: Scenarios/experiments/*.yaml. Exit 0 when the results meet the scenario's expectation, 1 otherwise."
    )

    @Argument(help: "The experiment scenario (.yaml, .yml or .json).")
    var scenario: String

    @Option(help: "The seed of every random choice (customers' decisions, storefronts).")
    var seed: UInt64 = 1

    @Option(help: "Overrides the scenario's number of customers.")
    var customers: Int?

    public init() {}

    public func run() async throws {
        var loaded = try ExperimentScenario.load(scenario)
        if let customers {
            guard (1...100_000).contains(customers) else { throw CLIFailure.usage("--customers must be 1 to 100000") }
            loaded.customers = customers
        }
        let report = try await ExperimentRun(scenario: loaded, seed: seed).run()
        Console.out(Data(report.text.utf8))
        if !report.passed { throw CLIFailure(exitCode: 1, message: "") }
    }
}
