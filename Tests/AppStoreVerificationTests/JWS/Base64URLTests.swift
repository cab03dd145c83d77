import AppStoreJOSE
import Foundation
import Testing

/// The project's base64url codec against Foundation's base64 on the same bytes, and its strict
/// rules (PyJWT's) on what it refuses.
@Suite("Base64URL")
struct Base64URLTests {
    /// Foundation's standard base64 of `bytes`, turned into base64url without padding.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("every length from 0 to 300, and a 15 kB payload, round-trips and matches Foundation")
    func roundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...300) + [15_485] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Self.reference(bytes)
            #expect(Base64URL.encode(bytes) == text, "length \(length)")
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
            let padded = Data(bytes).base64EncodedString()
            #expect(Base64URL.decodeStandard(padded) == bytes, "length \(length)")
        }
    }

    @Test("refuses a lone trailing character, non-zero unused bits, foreign bytes anywhere and wrong padding")
    func refusals() {
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AAAAA") == nil)
        // "QQ" is canonical for "A"; "QR" sets unused bits.
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QR") == nil)
        #expect(Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(Base64URL.decode("QUJ") == nil)
        let valid = Self.reference(Array("a longer text to corrupt at every position".utf8))
        for position in valid.indices {
            for foreign in ["+", "/", "=", " ", "\u{0}", "é"] {
                var corrupt = valid
                corrupt.replaceSubrange(position...position, with: foreign)
                #expect(Base64URL.decode(corrupt) == nil, "\(foreign.debugDescription) at \(valid.distance(from: valid.startIndex, to: position))")
            }
        }
        #expect(Base64URL.decode("QQ==") == [0x41])
        #expect(Base64URL.decode("QQ=") == nil)
        #expect(Base64URL.decode("QQ===") == nil)
        #expect(Base64URL.decodeStandard("QQ") == nil)
        #expect(Base64URL.decodeStandard("+/8=") == [0xFB, 0xFF])
        #expect(Base64URL.decodeStandard("-_8=") == nil)
    }

    /// What receipts accepted before ``Base64URL/decodeEitherAlphabet(_:)``: the alphabet made
    /// standard, the padding completed, then the strict standard decoder (Foundation's reads
    /// `QQ=A` as two bytes).
    static func normalizedReference(_ text: String) -> [UInt8]? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if normalized.count % 4 == 1 { return nil }
        if normalized.count % 4 > 0 { normalized += String(repeating: "=", count: 4 - normalized.count % 4) }
        return Base64URL.decodeStandard(normalized)
    }

    @Test("either alphabet, padding optional: every length in both alphabets, padded or not, and what is refused")
    func eitherAlphabet() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...200) + [4_097] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            let url = Self.reference(bytes)
            for text in [
                standard, url, standard.replacingOccurrences(of: "=", with: ""), url + String(repeating: "=", count: standard.count - url.count),
            ] {
                #expect(Base64URL.decodeEitherAlphabet(text) == bytes, "length \(length): \(text.suffix(8))")
            }
        }
        for text in ["A", "AAAAA", "QQ=", "QQ==", "QQ===", "QUI=", "QUI==", "Q===", "+/8", "-_8", "-/8=", "Q Q=", "QQ=A", "é", "=", "=="] {
            #expect(Base64URL.decodeEitherAlphabet(text) == Self.normalizedReference(text), "\(text.debugDescription)")
        }
        #expect(Base64URL.decodeEitherAlphabet("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decodeEitherAlphabet("QQ=") == [0x41])
        #expect(Base64URL.decodeEitherAlphabet("QUI==") == nil)
    }
}
