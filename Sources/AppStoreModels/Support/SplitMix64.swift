/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea and Flood 2014),
/// so a run with the same seed makes the same choices on every machine and replica.
///
/// The package's one implementation: the simulator's choices (`SeededRandom`), the experiment
/// statistics' posterior draws and the tests' replayable cases all come from it, so a seeded
/// run's figures stay bit-for-bit the same wherever they are computed. It lives here, in the
/// Foundation-only module every other target already depends on.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
