import AppStoreSimulator
import Testing

/// A seeded simulation is reproducible only while its derived generators never change.
@Suite("Seeded random")
struct SeededRandomTests {
    @Test("a generator derived from a seed and a label starts with the same numbers on every run")
    func derivedSequence() {
        var random = SeededRandom.derived(seed: 1, "population")
        let outputs = (0..<3).map { _ in random.next() }
        #expect(outputs == [0x921E_4707_38B6_9F3F, 0x9368_1C36_6473_3B54, 0x0E92_26AF_099E_DFA5])
    }

    @Test("chance is never true at 0 and always true at 1")
    func chanceBounds() {
        var random = SeededRandom(seed: 7)
        let bounded = (0..<100).allSatisfy { _ in !random.chance(0) && random.chance(1) }
        #expect(bounded)
    }
}
