import AppStoreModels
import Foundation
import Testing

@testable import SubscriptionAnalytics

@Suite("Experiment statistics")
struct ExperimentStatisticsTests {
    @Test("a variant converting 30% better over thousands of customers is best with probability above 95%; the interval excludes zero")
    func clearWinner() async {
        let results = await ExperimentStatistics.conversions([("A", 5_000, 500), ("B", 5_000, 650)], seed: 7)
        #expect(results[1].probabilityToBeBest > 0.99 && results[1].probabilityToBeatControl > 0.99)
        #expect(results[1].differenceLower > 0 && results[1].differenceUpper < 0.06)
        #expect(abs(results[0].observed - 0.1) < 1e-12 && abs(results[1].observed - 0.13) < 1e-12)
        #expect(abs(results[1].posteriorMean - 651.0 / 5_002) < 0.002)
    }

    @Test("identical variants split the probability to be best; the interval holds zero")
    func noDifference() async {
        let results = await ExperimentStatistics.conversions([("A", 2_000, 200), ("B", 2_000, 200)], seed: 3)
        #expect(abs(results[1].probabilityToBeBest - 0.5) < 0.05)
        #expect(results[1].differenceLower < 0 && results[1].differenceUpper > 0)
        #expect(abs(results.map(\.probabilityToBeBest).reduce(0, +) - 1) < 1e-9)
    }

    @Test("the Beta posterior's spread matches its closed form")
    func posteriorSpread() async {
        // Beta(1 + 30, 1 + 70): mean 31/102, sd sqrt(a b / ((a+b)^2 (a+b+1))).
        let (a, b) = (31.0, 71.0)
        let sd = (a * b / ((a + b) * (a + b) * (a + b + 1))).squareRoot()
        let results = await ExperimentStatistics.conversions([("A", 100, 30), ("B", 100, 30)], draws: 40_000, seed: 11)
        // The difference of two independent copies has sd·√2: its 95% interval is ±1.96·sd·√2.
        #expect(abs(results[1].differenceUpper - 1.96 * sd * 2.0.squareRoot()) < 0.01)
        #expect(abs(results[0].posteriorMean - a / (a + b)) < 0.003)
    }

    @Test("revenue per customer with many zeros: the Bayesian bootstrap finds the better variant and is reproducible")
    func revenue() async {
        let a = [Double](repeating: 0, count: 900) + [Double](repeating: 9.99, count: 100)
        let b = [Double](repeating: 0, count: 860) + [Double](repeating: 9.99, count: 140)
        let first = await ExperimentStatistics.amounts([("A", a), ("B", b)], seed: 5)
        #expect(first[1].probabilityToBeBest > 0.95)
        #expect(abs(first[0].observed - 0.999) < 1e-9 && abs(first[1].observed - 1.3986) < 1e-9)
        let again = await ExperimentStatistics.amounts([("A", a), ("B", b)], seed: 5)
        #expect(first == again)
        let same = await ExperimentStatistics.amounts([("A", a), ("B", a)], seed: 5)
        #expect(same[1].probabilityToBeBest > 0.3 && same[1].probabilityToBeBest < 0.7)
    }

    @Test("empty variants give zeros, not a crash")
    func empty() async {
        let results = await ExperimentStatistics.conversions([("A", 0, 0), ("B", 0, 0)], draws: 100)
        #expect(results.count == 2 && results[0].observed == 0)
        #expect(await ExperimentStatistics.amounts([("A", []), ("B", [])], draws: 100).count == 2)
        #expect(await ExperimentStatistics.conversions([]).isEmpty)
    }

    @Test("normal and Gamma draws have their distributions' moments and tails")
    func drawMoments() {
        var generator = SplitMix64(seed: 3)
        let normals = (0..<200_000).map { _ in PosteriorSampling.normal(using: &generator) }
        let mean = normals.reduce(0, +) / Double(normals.count)
        let variance = normals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(normals.count)
        #expect(abs(mean) < 0.01 && abs(variance - 1) < 0.015, "\(mean) \(variance)")
        // P(|Z| > 1.96) = 0.05; P(Z > 0) = 0.5.
        let tails = Double(normals.filter { abs($0) > 1.96 }.count) / Double(normals.count)
        let positive = Double(normals.filter { $0 > 0 }.count) / Double(normals.count)
        #expect(abs(tails - 0.05) < 0.003 && abs(positive - 0.5) < 0.005, "\(tails) \(positive)")
        // Whole shapes up to 3 are sums of exponentials, 4 and above Marsaglia and Tsang's.
        for shape in [0.5, 1, 2, 3, 4, 5, 250] {
            let draws = (0..<50_000).map { _ in PosteriorSampling.gamma(shape: shape, using: &generator) }
            let mean = draws.reduce(0, +) / Double(draws.count)
            let variance = draws.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(draws.count)
            // Gamma(k, 1): mean k, variance k.
            #expect(abs(mean - shape) < 0.03 * shape.squareRoot() + 0.01 && abs(variance / shape - 1) < 0.06, "\(shape): \(mean) \(variance)")
            guard shape == shape.rounded(), shape < 10 else { continue }
            // A whole shape's tails: P(X > x) = e^-x * sum of x^i / i! for i < k.
            for x in [0.5 * shape, shape, shape + 2 * shape.squareRoot()] {
                var term = 1.0
                var sum = 0.0
                for i in 0..<Int(shape) {
                    sum += term
                    term *= x / Double(i + 1)
                }
                let exact = exp(-x) * sum
                let seen = Double(draws.filter { $0 > x }.count) / Double(draws.count)
                #expect(abs(seen - exact) < 0.007, "\(shape) above \(x): \(seen) against \(exact)")
            }
        }
    }

    @Test("the ziggurats' pieces have equal areas: the published constants fit the densities")
    func zigguratTables() {
        for (table, area) in [(Ziggurat.normal, 9.91256303526217e-3), (Ziggurat.exponential, 3.949659822581572e-3)] {
            // Every rectangle above the base: its width times the height it adds.
            for index in 1..<(table.edges.count - 1) {
                let piece = table.edges[index] * (table.heights[index + 1] - table.heights[index])
                #expect(abs(piece - area) < 1e-9, "piece \(index): \(piece)")
            }
            #expect(abs(table.topArea - area) < 1e-9 && table.edges.last == 0 && table.edges[0] > table.edges[1])
        }
    }

    @Test("normal draws reach the tail beyond the base strip; exponential draws have their moments and tails")
    func zigguratTails() {
        var generator = SplitMix64(seed: 17)
        let normals = (0..<1_000_000).map { _ in PosteriorSampling.normal(using: &generator) }
        // P(|Z| > 3) = 0.0026998, P(|Z| > 3.5) = 0.00046527 (beyond the base strip's 3.4426).
        for (x, exact) in [(3.0, 0.0026998), (3.5, 0.00046527)] {
            let seen = Double(normals.filter { abs($0) > x }.count) / Double(normals.count)
            #expect(abs(seen - exact) < 5 * (exact / 1e6).squareRoot(), "beyond \(x): \(seen) against \(exact)")
        }
        #expect(Double(normals.filter { $0 > 3.5 }.count) / Double(normals.filter { $0 < -3.5 }.count) > 0.7)
        let exponentials = (0..<500_000).map { _ in PosteriorSampling.exponential(using: &generator) }
        let mean = exponentials.reduce(0, +) / Double(exponentials.count)
        let variance = exponentials.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(exponentials.count)
        #expect(abs(mean - 1) < 0.006 && abs(variance - 1) < 0.02, "\(mean) \(variance)")
        // P(X > x) = e^-x, out past the base strip's 7.697.
        for x in [0.1, 1, 3, 8] {
            let seen = Double(exponentials.filter { $0 > x }.count) / Double(exponentials.count)
            #expect(abs(seen - exp(-x)) < 5 * (exp(-x) / 5e5).squareRoot() + 1e-6, "beyond \(x): \(seen)")
        }
    }

    @Test("revenue given as distinct values and counts is the same comparison as one value per customer")
    func revenueCounts() async {
        let a = [Double](repeating: 0, count: 700) + [Double](repeating: 4.99, count: 200) + [Double](repeating: 9.99, count: 100)
        let b = [Double](repeating: 0, count: 650) + [Double](repeating: 4.99, count: 250) + [Double](repeating: 49.99, count: 3)
        let counted = await ExperimentStatistics.amounts(
            [("A", [0: 700, 4.99: 200, 9.99: 100, 1: 0]), ("B", [0: 650, 4.99: 250, 49.99: 3])], seed: 9)
        let listed = await ExperimentStatistics.amounts([("A", a), ("B", b)], seed: 9)
        #expect(counted == listed)
    }

    @Test("draws made in runs at once: as many as asked, the same for the same seed, different runs not repeating each other")
    func runs() async {
        for draws in [1, 3, 5, 4_001] {
            let samples = await ExperimentStatistics.jointSamples(draws: draws, seed: 4) { [PosteriorSampling.uniform(using: &$0)] }
            let again = await ExperimentStatistics.jointSamples(draws: draws, seed: 4) { [PosteriorSampling.uniform(using: &$0)] }
            #expect(samples.count == draws && samples == again)
            #expect(Set(samples.map { $0[0] }).count == draws, "a run's generator repeats another's")
        }
        let other = await ExperimentStatistics.jointSamples(draws: 8, seed: 5) { [PosteriorSampling.uniform(using: &$0)] }
        let first = await ExperimentStatistics.jointSamples(draws: 8, seed: 4) { [PosteriorSampling.uniform(using: &$0)] }
        #expect(other != first)
    }
}
