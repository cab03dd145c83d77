import AppStoreModels
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import SubscriptionEngine

/// A scenario's expectations in time order; each is checked against both the simulator's truth
/// and the server's answer when the run reaches its day.
struct ScenarioCheckpoints {
    private var pending: [(date: Date, expectation: ScenarioExpectation)]
    private(set) var checked = 0
    private(set) var met = 0

    init(scenario: Scenario?, start: Date) {
        pending = (scenario?.expect ?? [])
            .map { (start.addingTimeInterval(($0.day * 86_400).rounded()), $0) }
            .sorted { $0.date < $1.date }
    }

    /// The next instant with an expectation.
    var next: Date? { pending.first?.date }

    /// Removes and returns the expectations due at or before `instant`.
    mutating func due(at instant: Date) -> [ScenarioExpectation] {
        var due: [ScenarioExpectation] = []
        while let first = pending.first, first.date <= instant {
            due.append(first.expectation)
            pending.removeFirst()
        }
        return due
    }

    mutating func check(
        _ expectation: ScenarioExpectation, population: PopulationSimulator, client: HTTPClient, serverBase: String, key: String
    ) async throws {
        checked += 1
        let who = expectation.customer + (expectation.family == true ? " (family)" : "")
        guard let truth = population.subscription(ofCustomerNamed: expectation.customer, family: expectation.family == true) else {
            say("  day \(DemoReporter.number(expectation.day)) \(who): ✗ no subscription at the simulator")
            return
        }
        let (status, text) = try await DemoHTTP.send(
            client: client, method: .GET, url: "\(serverBase)/v1/apps/\(DemoWorld.appId)/subscriptions/\(truth.originalTransactionId)",
            key: key, body: nil)
        let server = status == 200 ? try? JSONDecoder().decode(DemoComparison.ServerView.self, from: Data(text.utf8)) : nil
        var lines: [String] = []
        var ok = true
        let instant = population.simulatedInstant
        if let expected = expectation.status {
            let apple = DemoComparison.engineStatus(truth.status(at: instant)).rawValue
            ok = ok && apple == expected && server?.status == expected
            lines.append("status \(expected) (Apple \(apple), server \(server?.status ?? "none"))")
        }
        if let product = expectation.product {
            ok = ok && truth.productId == product && server?.productId == product
            lines.append("product \(product) (Apple \(truth.productId), server \(server?.productId ?? "none"))")
        }
        if let renew = expectation.autoRenew {
            ok = ok && truth.autoRenewStatus == renew && server?.willAutoRenew == renew
            lines.append("auto-renew \(renew) (Apple \(truth.autoRenewStatus), server \(server?.willAutoRenew.map(String.init) ?? "none"))")
        }
        if ok { met += 1 }
        say("  day \(DemoReporter.number(expectation.day)) \(who): \(ok ? "✓" : "✗") " + lines.joined(separator: ", "))
    }

    private func say(_ line: String) {
        Console.out(Data((line + "\n").utf8))
    }
}
