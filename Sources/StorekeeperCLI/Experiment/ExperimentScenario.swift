import AppStoreSimulator
import Foundation
import StorekeeperHTTP
import StorekeeperServer
import Yams

/// An experiment scenario file (`Scenarios/experiments/*.yaml`): a population arriving at a
/// placement whose offering the server chooses, customers who react to what they are shown
/// (each product's price elasticity and trial appetite), and what the results must say.
///
/// ```yaml
/// name: a cheaper monthly plan converts 30% better
/// customers: 2400            # arriving evenly over arrivalDays
/// arrivalDays: 20
/// observationDays: 35        # after the last arrival, before the results are read
/// baseConversion: 0.10       # a customer shown the reference price buys with this chance
/// referencePrice: 9990       # milliunits
/// placement: onboarding
/// experiment: price-test     # its id in the offerings document
/// products: [...]            # the simulator's catalog, with priceElasticity / trialAppetite
/// offerings: {...}           # the offerings document the server is given
/// expect: { winner: B, minimumProbabilityToBeBest: 0.95 }   # or { noWinnerAbove: 0.95 }
/// ```
struct ExperimentScenario: Decodable, Sendable {
    struct Expectation: Decodable, Sendable {
        /// The variant that must be best with at least ``minimumProbabilityToBeBest``.
        var winner: String?
        var minimumProbabilityToBeBest: Double?
        /// No variant may be best with a probability above this (an A/A experiment).
        var noWinnerAbove: Double?
    }

    var name: String
    var description: String?
    var customers: Int
    var arrivalDays: Double
    var observationDays: Double
    var baseConversion: Double
    var referencePrice: Int64
    var placement: String
    var experiment: String
    var products: [SimulatedProduct]
    var offerings: JSONValue
    var expect: Expectation

    static func load(_ path: String) throws -> ExperimentScenario {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure.usage("cannot read \(path)") }
        let scenario: ExperimentScenario
        do {
            scenario =
                path.hasSuffix(".json")
                ? try JSONDecoder().decode(ExperimentScenario.self, from: data)
                : try YAMLDecoder().decode(ExperimentScenario.self, from: String(decoding: data, as: UTF8.self))
        } catch {
            throw CLIFailure.usage("\(path) is not an experiment scenario: \(error)")
        }
        if let problem = scenario.problem { throw CLIFailure.usage("\(path): \(problem)") }
        return scenario
    }

    var problem: String? {
        guard (1...100_000).contains(customers) else { return "customers must be 1 to 100000" }
        guard arrivalDays > 0, arrivalDays <= 365, observationDays >= 0, observationDays <= 365 else {
            return "arrivalDays must be 0 to 365 (more than 0), observationDays 0 to 365"
        }
        guard (0...1).contains(baseConversion), referencePrice > 0 else { return "baseConversion must be 0 to 1 and referencePrice above 0" }
        guard !products.isEmpty else { return "products must list the catalog" }
        guard expect.winner != nil || expect.noWinnerAbove != nil else { return "expect needs winner or noWinnerAbove" }
        return nil
    }
}
