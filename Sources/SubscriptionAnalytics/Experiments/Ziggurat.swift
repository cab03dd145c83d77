import Foundation

/// The table of Marsaglia and Tsang's ziggurat ("The Ziggurat Method for Generating Random
/// Variables", 2000), laid out as in Doornik's ZIGNOR (2005): the area under a decreasing
/// density cut into `layers` pieces of equal area, a base strip that holds the tail and
/// `layers − 1` rectangles stacked above it. ``PosteriorSampling`` draws from it: most draws take
/// one 64-bit random number, a multiplication and a comparison, and no logarithm.
///
/// The tables are buffers allocated once for the life of the process and never written after
/// they are made (hence `@unchecked Sendable`): reading an array from a shared table retained
/// and released it on every draw, most of a draw's cost.
struct Ziggurat: @unchecked Sendable {
    /// `edges[0]` is the base strip's width (its area over the density at `edges[1]`),
    /// `edges[1]` is where the tail starts, each next edge the right end of the next rectangle
    /// up, and `edges[layers]` is 0.
    let edges: UnsafeBufferPointer<Double>
    /// `edges[i + 1] / edges[i]`: a point of piece `i` left of it is under the density.
    let inner: UnsafeBufferPointer<Double>
    /// The (unnormalized) density at each edge.
    let heights: UnsafeBufferPointer<Double>

    /// `start` (where the tail starts) and `area` (of each piece) are the published constants
    /// for `layers` pieces of `density`, whose inverse is `inverse`.
    init(layers: Int, start: Double, area: Double, density: (Double) -> Double, inverse: (Double) -> Double) {
        var edges = [Double](repeating: 0, count: layers + 1)
        edges[0] = area / density(start)
        edges[1] = start
        for index in 2..<layers {
            edges[index] = inverse(area / edges[index - 1] + density(edges[index - 1]))
        }
        self.edges = Self.kept(edges)
        self.inner = Self.kept((0..<layers).map { edges[$0 + 1] / edges[$0] })
        self.heights = Self.kept(edges.map(density))
    }

    /// `values` in a buffer that lives as long as the process.
    private static func kept(_ values: [Double]) -> UnsafeBufferPointer<Double> {
        let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
        return UnsafeBufferPointer(buffer)
    }

    /// The area of the topmost piece (a rectangle under the density's peak at 0): equal to every
    /// other piece's when the constants are right.
    var topArea: Double {
        let top = edges[edges.count - 2]
        return top * (heights[edges.count - 1] - heights[edges.count - 2])
    }

    /// 128 pieces of the standard normal's exp(−x²/2) (Doornik's constants).
    static let normal = Ziggurat(
        layers: 128, start: 3.442619855899, area: 9.91256303526217e-3, density: { exp(-0.5 * $0 * $0) },
        inverse: { (-2 * log($0)).squareRoot() })

    /// 256 pieces of the exponential's exp(−x) (Marsaglia and Tsang's constants).
    static let exponential = Ziggurat(
        layers: 256, start: 7.69711747013104972, area: 3.949659822581572e-3, density: { exp(-$0) }, inverse: { -log($0) })
}
