import Foundation
import StorekeeperTestSupport
import Testing

@Suite("storekeeper simulate", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct SimulateCommandTests {
    static let scenarios = InteropPython.repositoryRoot.appendingPathComponent("Scenarios")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scenarios.path)) ?? [])
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }.sorted()
    }

    static func temporary(_ text: String, suffix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)\(suffix)")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("the repository's scenarios exist")
    func scenariosExist() {
        #expect(Self.files.count >= 4)
    }

    @Test("every scenario in Scenarios/ meets its expectations on the simulator and the server", arguments: files)
    func scenarioMeetsExpectations(_ file: String) async throws {
        let output = try await StorekeeperProcess.run(["simulate", Self.scenarios.appendingPathComponent(file).path], timeout: 600)
        #expect(output.exitCode == 0, "\(output.text)\n\(output.standardError)")
        let line = try #require(output.text.split(separator: "\n").last { $0.hasPrefix("expectations met ") })
        let counts = line.dropFirst("expectations met ".count).split(separator: "/").compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[1] > 0, "\(line)")
    }

    @Test("a wrong expectation fails the run with exit 1")
    func wrongExpectationFails() async throws {
        let file = try Self.temporary(
            """
            name: a trial that is said to be expired while it runs
            days: 10
            customers:
              - name: zoe
                actions:
                  - { day: 0, subscribe: premium.monthly, offer: trial }
            expect:
              - { day: 3, customer: zoe, status: expired }
            """, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await StorekeeperProcess.run(["simulate", file.path], timeout: 300)
        #expect(output.exitCode == 1, "\(output.text)")
        #expect(output.text.contains("expectations met 0/1"))
    }

    @Test(
        "unreadable or inconsistent scenarios are usage errors",
        arguments: [
            "name: x\ndays: 10\ncustomers: []\nexpect: [{ day: 1, customer: nobody, status: active }]\n",
            "name: x\ndays: 10\ncustomers: [{ name: a, actions: [{ day: 1, subscribe: no.such.product }] }]\nexpect: []\n",
            "name: x\ndays: -1\ncustomers: []\nexpect: []\n",
            "name: x\ndays: 10\ncustomers: [{ name: a, actions: [{ day: 1, cancel: true, refund: true }] }]\nexpect: []\n",
            "this is not yaml: [",
        ])
    func badScenariosAreUsageErrors(_ text: String) async throws {
        let file = try Self.temporary(text, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await StorekeeperProcess.run(["simulate", file.path])
        #expect(output.exitCode == 2, "\(output.text)\n\(output.standardError)")
        #expect(!output.standardError.isEmpty)
    }
}
