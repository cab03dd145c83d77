import AppStoreSimulator
import ArgumentParser
import Foundation
import Yams

/// `storekeeper simulate SCENARIO`: runs a scenario file (JSON or YAML: named customers doing
/// given things on given days) through the App Store simulator and the server, checks its
/// expectations against both, and compares every subscription at the end.
public struct SimulateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario file against the App Store simulator and the server, checking its expectations.",
        discussion: "Scenario files live in Scenarios/ (see Scenarios/README.md for the format). Exit 0 when every expectation holds on both sides."
    )

    @Argument(help: "The scenario file (.json, .yaml or .yml).")
    var scenario: String

    @Option(help: "The seed of every random choice.")
    var seed: UInt64 = 1

    @Option(name: .customLong("data-dir"), help: "Where the server keeps its SQLite database (default: a new temporary folder).")
    var dataDirectory: String?

    public init() {}

    public func run() async throws {
        let loaded = try Self.load(scenario)
        let settings = DemoSettings(
            check: true, customers: loaded.customers.count, days: loaded.days, dropRate: loaded.dropRate ?? 0,
            duplicateRate: loaded.duplicateRate ?? 0, seed: seed, dataDirectory: dataDirectory, port: 0, stepHours: 1, quiet: true,
            scenario: loaded)
        Console.out(Data("Scenario: \(loaded.name)\n".utf8))
        let outcome = try await DemoRunner(settings: settings).run()
        if !outcome.allMatched { throw CLIFailure(exitCode: 1, message: "") }
    }

    /// Reads and validates a scenario file; any problem is a usage error naming it.
    static func load(_ path: String) throws -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure.usage("cannot read \(path)") }
        let scenario: Scenario
        do {
            if path.hasSuffix(".json") {
                scenario = try JSONDecoder().decode(Scenario.self, from: data)
            } else {
                scenario = try YAMLDecoder().decode(Scenario.self, from: String(decoding: data, as: UTF8.self))
            }
        } catch {
            throw CLIFailure.usage("\(path) is not a scenario: \(error)")
        }
        do {
            try scenario.validate()
        } catch {
            throw CLIFailure.usage("\(path): \(error)")
        }
        return scenario
    }
}
