import AppStoreVerification
import Foundation
import Testing

/// Many full verifications (parse, RSA signature, chain, payload) in a row give the same answer;
/// the rate is printed for information only (speed is measured by `storekeeper bench receipt`,
/// not asserted here).
@Suite struct ReceiptThroughputTests {
    @Test func fullVerificationOfARealReceiptRepeatsWithTheSameAnswer() throws {
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
    }
}
