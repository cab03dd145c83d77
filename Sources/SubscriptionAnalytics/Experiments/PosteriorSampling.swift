import Foundation

/// Draws from the distributions the experiment statistics need.
enum PosteriorSampling {
    /// A uniform draw in (0, 1).
    static func uniform(using generator: inout some RandomNumberGenerator) -> Double {
        (Double(generator.next() >> 11) + 0.5) / 9_007_199_254_740_992
    }

    /// A standard normal draw: Marsaglia's polar method, a point drawn in the unit disc, which
    /// needs one logarithm and no cosine (Box–Muller's cosine was a sixth of an experiment's
    /// results at a million subscriptions).
    static func normal(using generator: inout some RandomNumberGenerator) -> Double {
        while true {
            let x = 2 * uniform(using: &generator) - 1
            let y = 2 * uniform(using: &generator) - 1
            let s = x * x + y * y
            if s < 1 { return x * (-2 * log(s) / s).squareRoot() }
        }
    }

    /// A Gamma(shape, 1) draw: for a whole shape up to ``exponentialSumShapes``, the sum of that
    /// many exponential draws (one logarithm of a product of uniforms: the revenue values most
    /// customers share with few others); otherwise Marsaglia and Tsang's method, boosted for
    /// shapes below 1.
    static func gamma(shape: Double, using generator: inout some RandomNumberGenerator) -> Double {
        if shape <= exponentialSumShapes, shape >= 1, shape == shape.rounded(.down) {
            var product = uniform(using: &generator)
            for _ in 1..<Int(shape) { product *= uniform(using: &generator) }
            return -log(product)
        }
        guard shape >= 1 else {
            return gamma(shape: shape + 1, using: &generator) * pow(uniform(using: &generator), 1 / shape)
        }
        let d = shape - 1.0 / 3
        let c = 1 / (9 * d).squareRoot()
        while true {
            var x = 0.0
            var v = 0.0
            repeat {
                x = normal(using: &generator)
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = uniform(using: &generator)
            if u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)) { return d * v }
        }
    }

    /// The largest whole shape ``gamma(shape:using:)`` draws as a sum of exponentials: up to
    /// about four uniform draws and a logarithm cost less than a normal, a uniform and a test.
    static let exponentialSumShapes = 4.0

    /// A Beta(alpha, beta) draw, from two Gamma draws.
    static func beta(alpha: Double, beta: Double, using generator: inout some RandomNumberGenerator) -> Double {
        let x = gamma(shape: alpha, using: &generator)
        let y = gamma(shape: beta, using: &generator)
        return x / (x + y)
    }

    /// The `q` quantile of sorted values (linear interpolation).
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
