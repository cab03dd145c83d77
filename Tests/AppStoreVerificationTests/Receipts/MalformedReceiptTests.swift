import AppStoreModels
import AppStoreVerification
import Foundation
import Testing

/// Anything that is not a genuine receipt is rejected with a status, quickly, never a crash.
@Suite struct MalformedReceiptTests {
    private let now = ReceiptFixtures.now

    @Test(arguments: ["revenuecat-unsupportedReceipt1.b64.txt", "revenuecat-unsupportedReceipt2.b64.txt"])
    func iOS6TransactionReceiptIsRecognisedAndRejectedAsMalformed(file: String) throws {
        let text = try ReceiptFixtures.data("receipts/ios6-transaction-receipts/\(file)")
        let result = try ReceiptVerifier().verify(text, now: now)
        #expect(result.status == .malformedReceipt)
        #expect(result.reason?.contains("iOS 6") == true)
    }

    @Test func emptyJSONCrackerAndTextInputsAreMalformed() throws {
        let verifier = try ReceiptVerifier()
        let inputs: [String: Data] = [
            "empty": Data(),
            "whitespace": Data("  \n".utf8),
            "json": Data(#"{"receipt-data": "MIIT", "password": "x"}"#.utf8),
            "json array": Data("[1, 2, 3]".utf8),
            "cracker (seed 004)": Data("Y29tLnVydXMuaWFwLjk2NjU3Mjkw".utf8),
            "plain text": Data("hello receipt".utf8),
            "base64 of zeros": Data(Data(count: 64).base64EncodedString().utf8),
            "lonely sequence tag": Data([0x30]),
            "short DER": Data([0x30, 0x03, 0x02, 0x01, 0x01]),
            "indefinite without end": Data([0x30, 0x80, 0x30, 0x80]),
            "deep nesting": Data(Array(repeating: [UInt8]([0x30, 0x80]), count: 5_000).flatMap { $0 }),
        ]
        for (name, data) in inputs {
            let result = verifier.verify(data, now: now)
            #expect(result.status == .malformedReceipt, "\(name): \(result.reason ?? "valid")")
        }
    }

    @Test func randomBytesAreRejected() throws {
        let verifier = try ReceiptVerifier()
        var generator = SplitMix64(seed: 0x5EED)
        for length in [1, 2, 17, 128, 1_000, 10_000] {
            for prefix: [UInt8] in [[], [0x30, 0x82], [0x30, 0x80]] {
                let bytes = prefix + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(verifier.verify(Data(bytes), now: now).status != .valid)
            }
        }
    }

    @Test(arguments: ["revenuecat-sandbox-sample1-2020", "tpinappreceipt-sandbox-g5-2025", "xcode-storekit-2020"])
    func truncatedReceiptsAreRejected(name: String) throws {
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        let data = try ReceiptFixtures.receipt(name)
        let step = max(1, data.count / 300)
        for length in stride(from: 0, to: data.count, by: step) {
            #expect(verifier.verify(data.prefix(length), now: now).status != .valid, "\(name) cut at \(length)")
        }
        #expect(verifier.verify(data.dropLast(), now: now).status != .valid)
    }

    /// A flipped bit anywhere is rejected: in the signed payload or the signature it breaks the
    /// signature, in a certificate it breaks the chain, and in Apple's embedded copy of the root
    /// it leaves a certificate outside the chain.
    @Test(arguments: ["revenuecat-sandbox-receipt3-2018", "tpinappreceipt-production-2024", "xcode-storekit-2023-with-transaction"])
    func bitFlippedReceiptsAreAlwaysRejected(name: String) throws {
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        let data = try ReceiptFixtures.receipt(name)
        try #require(verifier.verify(data, now: now).receipt != nil)
        var generator = SplitMix64(seed: UInt64(data.count))
        let positions = Array(stride(from: 0, to: data.count, by: 3)) + (0..<300).map { _ in Int.random(in: 0..<data.count, using: &generator) }
        for position in positions {
            var copy = data
            copy[copy.startIndex + position] ^= 1 << UInt8(position % 8)
            #expect(verifier.verify(copy, now: now).status != .valid, "\(name): flip at \(position) accepted")
        }
    }

    @Test func payloadAndSignatureFlipsAreAlwaysRejected() throws {
        let verifier = try ReceiptVerifier()
        let data = try ReceiptFixtures.receipt("revenuecat-sandbox-sample1-2020")
        // Payload: offsets 62..<4273 (after the OCTET STRING header); signature: the last 256 bytes.
        let ranges = [62..<4273, (data.count - 256)..<data.count]
        for range in ranges {
            for position in stride(from: range.lowerBound, to: range.upperBound, by: 5) {
                var copy = data
                copy[position] ^= 0x10
                #expect(verifier.verify(copy, now: now).status != .valid, "flip at \(position)")
            }
        }
    }

    /// A damaged receipt costs no more than a genuine one (no input makes the parser search or
    /// loop): the bound is the same run's own measure of full verifications, so a slow or
    /// loaded machine moves both alike.
    @Test func aRejectionCostsNoMoreThanAFullVerification() throws {
        let verifier = try ReceiptVerifier()
        let data = try ReceiptFixtures.receipt("tpinappreceipt-sandbox-legacy-2020")
        let clock = ContinuousClock()
        let genuine = clock.measure {
            for _ in 0..<100 { _ = verifier.verify(data, now: now) }
        }
        let damaged = clock.measure {
            for index in 0..<1_000 {
                var copy = data
                copy[(index * 79) % copy.count] ^= 0x01
                _ = verifier.verify(copy, now: now)
            }
        }
        // A thousand rejections against a hundred verifications, with a factor of ten to spare.
        #expect(damaged < genuine * 100, "1000 rejections took \(damaged), 100 verifications \(genuine)")
    }
}
