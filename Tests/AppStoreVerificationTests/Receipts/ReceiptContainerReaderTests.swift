import AppStoreModels
import Foundation
import StorekeeperTestSupport
import Testing

@testable import AppStoreVerification

/// The PKCS#7 container reader (`ReceiptSignedData` over `ReceiptTLV`, no node trees): real
/// receipts re-encoded the ways BER allows still read; broken lengths, missing end-of-contents,
/// excessive nesting and mangled copies are refused with a typed failure, never a crash.
@Suite struct ReceiptContainerReaderTests {
    private let now = ReceiptFixtures.now

    private static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try ReceiptFixtures.receipt(name))
    }

    /// Whether the container reader refuses `bytes` (with a typed failure: it cannot throw anything else).
    private static func isRefused(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try ReceiptSignedData(berEncoded: bytes)
            return false
        } catch {
            return !error.description.isEmpty
        }
    }

    /// `bytes` with its outermost element, and each element down `path` (child indices), re-encoded
    /// with the indefinite length as Xcode writes receipts: `[1, 0]` is ContentInfo, its `[0]` and
    /// SignedData; `[1, 0, 3]` adds the certificates field, `[1, 0, 3, 0]` its first certificate.
    private static func indefinite(_ bytes: ArraySlice<UInt8>, path: ArraySlice<Int>) throws -> [UInt8] {
        let element = try ReceiptTLV.whole(bytes, deep: false)
        var encoded: [UInt8] = [element.identifier, 0x80]
        for (index, child) in try element.children(in: bytes, deep: false).enumerated() {
            let part = bytes[child.element]
            encoded += index == path.first ? try indefinite(part, path: path.dropFirst()) : Array(part)
        }
        return encoded + [0, 0]
    }

    @Test(arguments: ["tpinappreceipt-production-2024", "revenuecat-sandbox-sample1-2020"])
    func aDERReceiptReEncodedWithIndefiniteLengthsStillVerifies(name: String) throws {
        let der = try Self.bytes(name)
        let verifier = try ReceiptVerifier()
        let original = try #require(verifier.verify(Data(der), now: now).receipt)
        for path: [Int] in [[], [1, 0], [1, 0, 3]] {
            let ber = try Self.indefinite(der[...], path: path[...])
            #expect(ber != der)
            #expect(verifier.verify(Data(ber), now: now).receipt == original, "indefinite down \(path)")
            // The signed content is what it was, so the signature still covers it.
            #expect(try ReceiptSignedData(berEncoded: ber).content.elementsEqual(try ReceiptSignedData(berEncoded: der).content))
        }
    }

    @Test func indefiniteLengthsWithoutTheirEndOfContentsAreRefused() throws {
        let ber = try Self.indefinite(try Self.bytes("tpinappreceipt-production-2024")[...], path: [1, 0])
        #expect(Self.isRefused(Array(ber.dropLast(2))))
        #expect(Self.isRefused(Array(ber.dropLast(1))))
        // An end-of-contents pair too many is trailing data.
        #expect(Self.isRefused(ber + [0, 0]))
    }

    @Test func lengthsPastTheEndAreRefused() throws {
        let der = try Self.bytes("tpinappreceipt-production-2024")
        // 0: SEQUENCE 82 19 DF; 15: [0] 82 19 D0; 2372: certificates [0] 82 0E E2; 2376: its first certificate.
        for offset in [2, 17, 2374, 2378] {
            for delta in [1, 255, -1] {
                var copy = der
                copy[offset] = UInt8(truncatingIfNeeded: Int(copy[offset]) + delta)
                #expect(Self.isRefused(copy), "length at \(offset) changed by \(delta)")
            }
        }
        #expect(Self.isRefused(der + [0x00]))
    }

    @Test func truncatedAndOversizedLengthFieldsAreRefused() throws {
        let inputs: [String: [UInt8]] = [
            "no length": [0x30],
            "long form cut short": [0x30, 0x82, 0x01],
            "five length octets": [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x02, 0x05, 0x00],
            "length past the input": [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xF0, 0x06, 0x00],
            "indefinite primitive": [0x30, 0x80, 0x04, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00],
            "long-form tag": [0x3F, 0x81, 0x01, 0x00],
            "empty": [],
        ]
        for (name, bytes) in inputs {
            #expect(Self.isRefused(bytes), "\(name)")
        }
        // Every cut of a real container is refused, at the reader and by the verifier.
        let der = try Self.bytes("revenuecat-sandbox-sample1-2020")
        for length in stride(from: 0, to: der.count, by: 7) {
            #expect(Self.isRefused(Array(der.prefix(length))), "cut at \(length)")
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        let depth = ReceiptTLV.maximumDepth + 2
        let nested = Array(repeating: [UInt8]([0x30, 0x80]), count: depth).flatMap { $0 } + Array(repeating: 0, count: 2 * depth)
        #expect(Self.isRefused(nested))
        #expect(throws: ReceiptTLV.Malformed.self) { try ReceiptTLV.whole(nested[...], deep: false) }
        let shallowEnough = Array(repeating: [UInt8]([0x30, 0x80]), count: 4).flatMap { $0 } + Array(repeating: 0, count: 8)
        #expect(throws: Never.self) { try ReceiptTLV.whole(shallowEnough[...], deep: false) }
    }

    @Test func aCertificateInTheIndefiniteFormIsRefused() throws {
        let der = try Self.bytes("tpinappreceipt-production-2024")
        let ber = try Self.indefinite(der[...], path: [1, 0, 3, 0])
        #expect(throws: ReceiptDecodingFailure.self) { try ReceiptSignedData(berEncoded: ber) }
        #expect(try ReceiptVerifier().verify(Data(ber), now: now).status == .malformedReceipt)
    }

    @Test("mangled containers of every real receipt are read or refused, never crash or verify", arguments: ReceiptFixtures.receiptNames)
    func mangledContainers(name: String) throws {
        let original = try Self.bytes(name)
        let verifier = try ReceiptFixtures.verifierWithXcodeRoot()
        var random = SplitMix64(seed: name.utf8.reduce(11) { $0 &* 31 &+ UInt64($1) })
        var refused = 0
        for _ in 0..<400 {
            let mangled = ReceiptPayloadMutationTests.mutate(original, &random)
            if Self.isRefused(mangled) { refused += 1 }
            if mangled != original {
                #expect(verifier.verify(Data(mangled), now: now).status != .valid)
            }
        }
        #expect(refused > 50)
    }

    @Test func cacheKeysCompareEveryByteButHashASample() {
        let bytes = (0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var middle = bytes
        middle[2_000] ^= 0x01
        let key = ExactBytesKey(bytes[10..<3_990])
        #expect(key == ExactBytesKey(bytes: Array(bytes[10..<3_990])))
        #expect(key.hashValue == key.compacted().hashValue)
        #expect(key.compacted().bytes.startIndex == 0)
        // A difference outside the sampled bytes still makes the keys unequal.
        #expect(key != ExactBytesKey(middle[10..<3_990]))
        #expect(ExactBytesKey([]) == ExactBytesKey(bytes: []))
    }
}
