import Foundation
import StorekeeperTestSupport
import Testing

/// Experiments run end to end: the server chooses offerings, simulated customers react to what
/// they are shown and buy through StorekeeperKit, the server's results call the winner.
@Suite("storekeeper experiment", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct ExperimentCommandTests {
    static let folder = InteropPython.repositoryRoot.appendingPathComponent("Scenarios/experiments")

    static func run(_ arguments: [String]) async throws -> StorekeeperProcess.Output {
        try await StorekeeperProcess.run(["experiment"] + arguments, timeout: 600)
    }

    /// The probability to be best the report gives `variant`, in percent.
    static func probabilityToBeBest(_ text: String, variant: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("  variant \(variant) ") }),
            let range = line.range(of: "P(best) ")
        else { return nil }
        return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }

    @Test("the scenario whose variant B converts 30% better gives B a probability to be best above 95%")
    func knownWinner() async throws {
        let output = try await Self.run([Self.folder.appendingPathComponent("known-winner.yaml").path])
        #expect(output.exitCode == 0, "\(output.text)\n\(output.standardError)")
        #expect((Self.probabilityToBeBest(output.text, variant: "B") ?? 0) > 95, "\(output.text)")
        #expect(output.text.contains("bought through StorekeeperKit"))
    }

    @Test("an A/A experiment names no winner in most seeds")
    func noWinnerInAA() async throws {
        var met = 0
        for seed in 1...3 {
            let output = try await Self.run([Self.folder.appendingPathComponent("a-a.yaml").path, "--seed", "\(seed)"])
            #expect([0, 1].contains(output.exitCode), "\(output.standardError)")
            if output.exitCode == 0 { met += 1 }
        }
        #expect(met >= 2)
    }

    @Test("an unreadable or inconsistent scenario is a usage error", arguments: ["customers: -1", "name: x"])
    func badScenario(_ text: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("experiment-\(UUID().uuidString).yaml")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await Self.run([file.path])
        #expect(output.exitCode == 2, "\(output.standardError)")
    }
}
