import AppStoreModels
import Foundation
import Testing

@testable import AppStoreVerification

/// The payload reader (`ReceiptTLV`) on mangled copies of every real receipt's payload: each
/// either decodes or is refused with a typed failure; none crashes, reads out of bounds or hangs.
/// A seeded few thousand per fixture here; `Fuzz/` runs the same reader under libFuzzer.
@Suite struct ReceiptPayloadMutationTests {
    static func payload(_ name: String) throws -> [UInt8] {
        let data = try ReceiptFixtures.receipt(name)
        guard case .pkcs7(let bytes) = ReceiptInput.classify(data) else { throw ReceiptFixtures.Missing(description: "\(name): not PKCS#7") }
        return Array(try ReceiptSignedData(berEncoded: bytes).content)
    }

    /// One mangled copy: bytes flipped, a length byte made huge, a cut, or a piece repeated.
    static func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var copy = bytes
        guard !copy.isEmpty else { return copy }
        switch random.next() % 5 {
        case 0:
            for _ in 0..<(1 + Int(random.next() % 4)) {
                copy[Int(random.next() % UInt64(copy.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
        case 1:
            let at = Int(random.next() % UInt64(copy.count))
            copy[at] = [0x80, 0x84, 0x88, 0xFF, 0x7F][Int(random.next() % 5)]
        case 2:
            copy.removeLast(Int(random.next() % UInt64(copy.count)))
        case 3:
            let start = Int(random.next() % UInt64(copy.count))
            let piece = copy[start..<min(copy.count, start + 1 + Int(random.next() % 64))]
            copy.insert(contentsOf: piece, at: Int(random.next() % UInt64(copy.count)))
        default:
            let at = Int(random.next() % UInt64(copy.count))
            copy.replaceSubrange(at..<min(copy.count, at + 4), with: [0x31, 0x84, 0x7F, 0xFF])
        }
        return copy
    }

    @Test("mangled payloads of every real receipt decode or are refused, never crash", arguments: ReceiptFixtures.receiptNames)
    func mangledPayloads(name: String) throws {
        let payload = try Self.payload(name)
        #expect(throws: Never.self) { try AppReceipt(payload: payload[...]) }
        var random = SplitMix64(seed: name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) })
        var refused = 0
        for _ in 0..<2_000 {
            do {
                _ = try AppReceipt(payload: Self.mutate(payload, &random)[...])
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        // Most mangled payloads are refused; some changes (inside a string) still decode.
        #expect(refused > 100)
    }
}
