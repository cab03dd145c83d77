import AppStoreModels
import Foundation

/// Bayesian comparisons of an experiment's variants, as docs/offerings.md ("Experiments") states them.
///
/// - Conversion rates: each variant's rate has a Beta(1 + conversions, 1 + exposed − conversions)
///   posterior (a uniform prior). From `draws` joint samples: the probability that a variant's
///   rate beats the control's, the probability that it is the best of all, and the 2.5 % and
///   97.5 % quantiles of (variant − control): a 95 % credible interval of the difference.
/// - Revenue per exposed customer (most of them zeros): the Bayesian bootstrap — each draw
///   weights the customers with Dirichlet(1, …, 1) weights and takes the weighted mean; customers
///   with the same value share a Gamma(count) weight, which is the same distribution and keeps a
///   draw proportional to the number of distinct values. Same outputs.
///
/// The draws are made in ``drawRuns`` runs at once, each from its own ``SplitMix64`` seeded from
/// the caller's seed: the same data and seed give the same answer on any machine, and a request
/// uses every core (the draws were most of an experiment's results at a million subscriptions).
public enum ExperimentStatistics {
    /// One variant's posterior summary.
    public struct Comparison: Sendable, Hashable, Codable {
        public var variant: String
        /// The observed value: the conversion rate, or the mean revenue per exposed customer.
        public var observed: Double
        /// The posterior mean.
        public var posteriorMean: Double
        /// P(variant > control); 0.5 for the control itself.
        public var probabilityToBeatControl: Double
        /// P(variant is the best of all).
        public var probabilityToBeBest: Double
        /// The 95 % credible interval of (variant − control).
        public var differenceLower: Double
        public var differenceUpper: Double
    }

    /// Conversions: `(variant, exposed, converted)`, the control first.
    public static func conversions(
        _ variants: [(id: String, exposed: Int, converted: Int)], draws: Int = 20_000, seed: UInt64 = 1
    ) async
        -> [Comparison]
    {
        let shapes = variants.map { (alpha: 1 + Double(max(0, $0.converted)), beta: 1 + Double(max(0, $0.exposed - $0.converted))) }
        let samples = await jointSamples(draws: draws, seed: seed) { generator in
            shapes.map { PosteriorSampling.beta(alpha: $0.alpha, beta: $0.beta, using: &generator) }
        }
        let observed = variants.map { $0.exposed > 0 ? Double($0.converted) / Double($0.exposed) : 0 }
        return summarize(ids: variants.map(\.id), observed: observed, samples: samples)
    }

    /// Revenue (or any amount) per exposed customer: each variant's values, one per exposed
    /// customer (zeros included), the control first.
    public static func amounts(_ variants: [(id: String, values: [Double])], draws: Int = 4_000, seed: UInt64 = 1) async -> [Comparison] {
        await amounts(variants.map { ($0.id, Dictionary($0.values.map { ($0, 1) }, uniquingKeysWith: +)) }, draws: draws, seed: seed)
    }

    /// Revenue (or any amount) per exposed customer: each variant's distinct values with the
    /// number of exposed customers who had each (zeros included), the control first.
    public static func amounts(
        _ variants: [(id: String, counts: [Double: Int])], draws: Int = 4_000, seed: UInt64 = 1
    ) async
        -> [Comparison]
    {
        let grouped = variants.map { variant in
            variant.counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { (value: $0.key, shape: Double($0.value)) }
        }
        let samples = await jointSamples(draws: draws, seed: seed) { generator in
            grouped.map { groups -> Double in
                var total = 0.0
                var weighted = 0.0
                for (value, shape) in groups {
                    let weight = PosteriorSampling.gamma(shape: shape, using: &generator)
                    total += weight
                    weighted += weight * value
                }
                return total > 0 ? weighted / total : 0
            }
        }
        // Summed by distinct value in the values' order: the same mean whatever order the
        // customers came in.
        let observed = grouped.map { groups -> Double in
            let count = groups.reduce(0) { $0 + $1.shape }
            return count == 0 ? 0 : groups.reduce(0.0) { $0 + $1.value * $1.shape } / count
        }
        return summarize(ids: variants.map(\.id), observed: observed, samples: samples)
    }

    /// How many runs the draws are split into, whatever the machine (so the answer is the same).
    static let drawRuns = 4

    /// `max(1, draws)` joint draws, `draw` with the generator of their run: runs of equal size
    /// made at once, each with a generator seeded by a draw of one seeded by `seed`, joined in
    /// the runs' order.
    static func jointSamples(draws: Int, seed: UInt64, _ draw: @escaping @Sendable (inout SplitMix64) -> [Double]) async -> [[Double]] {
        let total = max(1, draws)
        var seeds = SplitMix64(seed: seed)
        let runs = (0..<drawRuns).map { run in (run: run, seed: seeds.next(), count: total * (run + 1) / drawRuns - total * run / drawRuns) }
        return await withTaskGroup(of: (Int, [[Double]]).self) { group in
            for run in runs {
                group.addTask {
                    var generator = SplitMix64(seed: run.seed)
                    return (run.run, (0..<run.count).map { _ in draw(&generator) })
                }
            }
            var samples = [[[Double]]](repeating: [], count: runs.count)
            for await (run, drawn) in group { samples[run] = drawn }
            return samples.flatMap { $0 }
        }
    }

    static func summarize(ids: [String], observed: [Double], samples: [[Double]]) -> [Comparison] {
        guard !ids.isEmpty else { return [] }
        var beats = [Int](repeating: 0, count: ids.count)
        var best = [Int](repeating: 0, count: ids.count)
        var sums = [Double](repeating: 0, count: ids.count)
        var differences = [[Double]](repeating: [], count: ids.count)
        for draw in samples {
            let top = draw.indices.max { draw[$0] < draw[$1] } ?? 0
            best[top] += 1
            for index in draw.indices {
                sums[index] += draw[index]
                if draw[index] > draw[0] { beats[index] += 1 }
                differences[index].append(draw[index] - draw[0])
            }
        }
        let count = Double(samples.count)
        return ids.indices.map { index in
            let sorted = differences[index].sorted()
            return Comparison(
                variant: ids[index], observed: observed[index], posteriorMean: sums[index] / count,
                probabilityToBeatControl: index == 0 ? 0.5 : Double(beats[index]) / count, probabilityToBeBest: Double(best[index]) / count,
                differenceLower: PosteriorSampling.quantile(sorted, 0.025), differenceUpper: PosteriorSampling.quantile(sorted, 0.975))
        }
    }
}
