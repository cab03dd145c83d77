import Foundation
import SubscriptionAnalytics
import Testing

@Suite("Experiment statistics")
struct ExperimentStatisticsTests {
    @Test("a variant converting 30% better over thousands of customers is best with probability above 95%; the interval excludes zero")
    func clearWinner() {
        let results = ExperimentStatistics.conversions([("A", 5_000, 500), ("B", 5_000, 650)], seed: 7)
        #expect(results[1].probabilityToBeBest > 0.99 && results[1].probabilityToBeatControl > 0.99)
        #expect(results[1].differenceLower > 0 && results[1].differenceUpper < 0.06)
        #expect(abs(results[0].observed - 0.1) < 1e-12 && abs(results[1].observed - 0.13) < 1e-12)
        #expect(abs(results[1].posteriorMean - 651.0 / 5_002) < 0.002)
    }

    @Test("identical variants split the probability to be best; the interval holds zero")
    func noDifference() {
        let results = ExperimentStatistics.conversions([("A", 2_000, 200), ("B", 2_000, 200)], seed: 3)
        #expect(abs(results[1].probabilityToBeBest - 0.5) < 0.05)
        #expect(results[1].differenceLower < 0 && results[1].differenceUpper > 0)
        #expect(abs(results.map(\.probabilityToBeBest).reduce(0, +) - 1) < 1e-9)
    }

    @Test("the Beta posterior's spread matches its closed form")
    func posteriorSpread() {
        // Beta(1 + 30, 1 + 70): mean 31/102, sd sqrt(a b / ((a+b)^2 (a+b+1))).
        let (a, b) = (31.0, 71.0)
        let sd = (a * b / ((a + b) * (a + b) * (a + b + 1))).squareRoot()
        let results = ExperimentStatistics.conversions([("A", 100, 30), ("B", 100, 30)], draws: 40_000, seed: 11)
        // The difference of two independent copies has sd·√2: its 95% interval is ±1.96·sd·√2.
        #expect(abs(results[1].differenceUpper - 1.96 * sd * 2.0.squareRoot()) < 0.01)
        #expect(abs(results[0].posteriorMean - a / (a + b)) < 0.003)
    }

    @Test("revenue per customer with many zeros: the Bayesian bootstrap finds the better variant and is reproducible")
    func revenue() {
        let a = [Double](repeating: 0, count: 900) + [Double](repeating: 9.99, count: 100)
        let b = [Double](repeating: 0, count: 860) + [Double](repeating: 9.99, count: 140)
        let first = ExperimentStatistics.amounts([("A", a), ("B", b)], seed: 5)
        #expect(first[1].probabilityToBeBest > 0.95)
        #expect(abs(first[0].observed - 0.999) < 1e-9 && abs(first[1].observed - 1.3986) < 1e-9)
        #expect(first == ExperimentStatistics.amounts([("A", a), ("B", b)], seed: 5))
        let same = ExperimentStatistics.amounts([("A", a), ("B", a)], seed: 5)
        #expect(same[1].probabilityToBeBest > 0.3 && same[1].probabilityToBeBest < 0.7)
    }

    @Test("empty variants give zeros, not a crash")
    func empty() {
        let results = ExperimentStatistics.conversions([("A", 0, 0), ("B", 0, 0)], draws: 100)
        #expect(results.count == 2 && results[0].observed == 0)
        #expect(ExperimentStatistics.amounts([("A", []), ("B", [])], draws: 100).count == 2)
        #expect(ExperimentStatistics.conversions([]).isEmpty)
    }
}
