import AppStoreModels
import Testing

/// Seeded runs (the simulator, the demo, the experiment statistics, replayable test cases) are
/// reproducible only while the generator's sequence never changes: these are SplitMix64's
/// published first outputs, pinned bit for bit.
@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("seed 0 gives the reference implementation's first outputs")
    func referenceSequence() {
        var generator = SplitMix64(seed: 0)
        let outputs = (0..<4).map { _ in generator.next() }
        #expect(outputs == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC])
    }

    @Test("a test seed gives the same outputs on every run")
    func testSeedSequence() {
        var generator = SplitMix64(seed: 0x5EED)
        let outputs = (0..<4).map { _ in generator.next() }
        #expect(outputs == [0x09F1_FD9D_03F0_A9B4, 0x5532_7416_1BBF_8475, 0x5D5B_CA46_96B3_43B3, 0x70D2_9B6C_7D22_528D])
    }
}
