import AppStoreVerification
import Foundation
import Testing

/// A rough throughput figure for one full verification (parse, RSA signature, chain, payload).
@Suite struct ReceiptThroughputTests {
    @Test func fullVerificationOfARealReceiptRunsHundredsOfTimesPerSecond() throws {
        let verifier = try ReceiptVerifier()
        let data = try ReceiptFixtures.receipt("tpinappreceipt-sandbox-g5-2025")
        let iterations = 200
        var valid = 0
        let elapsed = ContinuousClock().measure {
            for _ in 0..<iterations where verifier.verify(data, now: ReceiptFixtures.now).status == .valid {
                valid += 1
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("receipt verification: \(Int(Double(iterations) / seconds)) ops/s (\(data.count) bytes, this build)")
        #expect(valid == iterations)
        #expect(seconds < 20)
    }
}
