import AppStoreModels

/// The simulation's random numbers: a ``SplitMix64``, so a simulation run with the same seed
/// makes the same choices on every machine.
public typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// True with probability `p` (0…1).
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double.random(in: 0..<1, using: &self) < p
    }

    /// A generator derived from this one's seed and a label, independent of how many numbers
    /// this one has drawn (so adding a knob does not reshuffle everything else).
    public static func derived(seed: UInt64, _ label: String) -> SeededRandom {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in label.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return SeededRandom(seed: seed ^ hash)
    }
}
