import Foundation
import SubscriptionEngine
import Testing

@testable import StorekeeperCLI

@Suite("The engine benchmark's fixture")
struct EngineBenchmarkTests {
    @Test("the benchmark computes a realistic state")
    func benchmark() {
        let bench = EngineBenchmark()
        #expect(bench.factCount == 57)
        let late = bench.run(iteration: 63)
        #expect(late > 0)
        let state = CustomerState(history: bench.history, catalog: bench.catalog, at: bench.instants[40], configuration: bench.configuration)
        #expect(state.subscription("t0")?.status == .active)
        #expect(state.subscription("t0")?.productId == "premium.monthly")
        #expect(state.isEntitled(to: "themes"))
        #expect(state.consumables.count > 1)
    }
}
