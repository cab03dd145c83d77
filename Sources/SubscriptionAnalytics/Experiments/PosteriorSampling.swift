import Foundation

/// Draws from the distributions the experiment statistics need.
enum PosteriorSampling {
    /// A uniform draw in (0, 1).
    static func uniform(using generator: inout some RandomNumberGenerator) -> Double {
        (Double(generator.next() >> 11) + 0.5) / 9_007_199_254_740_992
    }

    /// A standard normal draw, from the ziggurat (``Ziggurat/normal``): the low seven bits of
    /// one random number pick the piece, the eighth the sign, the top 53 the point. Marsaglia's
    /// polar method before it needed a logarithm for every draw, the largest part of an
    /// experiment's results at a million subscriptions.
    static func normal(using generator: inout some RandomNumberGenerator) -> Double {
        let table = Ziggurat.normal
        while true {
            let bits = generator.next()
            let layer = Int(truncatingIfNeeded: bits & 127)
            let sign: Double = bits & 128 == 0 ? 1 : -1
            let position = Double(bits >> 11) * 0x1p-53
            if position < table.inner[layer] { return sign * position * table.edges[layer] }
            if layer == 0 {
                // Beyond the base strip's start r: Marsaglia's tail (1964).
                let start = table.edges[1]
                while true {
                    let x = -log(uniform(using: &generator)) / start
                    let y = -log(uniform(using: &generator))
                    if 2 * y >= x * x { return sign * (start + x) }
                }
            }
            let point = position * table.edges[layer]
            let height = table.heights[layer] + uniform(using: &generator) * (table.heights[layer + 1] - table.heights[layer])
            if height < exp(-0.5 * point * point) { return sign * point }
        }
    }

    /// An Exponential(1) draw, from the ziggurat (``Ziggurat/exponential``): the low eight bits
    /// pick the piece, the top 53 the point; the tail beyond r is r plus an exponential draw.
    static func exponential(using generator: inout some RandomNumberGenerator) -> Double {
        let table = Ziggurat.exponential
        while true {
            let bits = generator.next()
            let layer = Int(truncatingIfNeeded: bits & 255)
            let position = Double(bits >> 11) * 0x1p-53
            if position < table.inner[layer] { return position * table.edges[layer] }
            if layer == 0 { return table.edges[1] - log(uniform(using: &generator)) }
            let point = position * table.edges[layer]
            let height = table.heights[layer] + uniform(using: &generator) * (table.heights[layer + 1] - table.heights[layer])
            if height < exp(-point) { return point }
        }
    }

    /// A Gamma(shape, 1) draw: for a whole shape up to ``exponentialSumShapes``, the sum of that
    /// many exponential draws (the revenue values most customers share with few others);
    /// otherwise Marsaglia and Tsang's method, boosted for shapes below 1.
    static func gamma(shape: Double, using generator: inout some RandomNumberGenerator) -> Double {
        if shape <= exponentialSumShapes, shape >= 1, shape == shape.rounded(.down) {
            var sum = exponential(using: &generator)
            for _ in 1..<Int(shape) { sum += exponential(using: &generator) }
            return sum
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
    /// three ziggurat draws cost less than Marsaglia and Tsang's normal, uniform and test,
    /// whose rejections grow as the shape nears 1.
    static let exponentialSumShapes = 3.0

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
