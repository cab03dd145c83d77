import Foundation

/// The body of a V2 notification as Apple sends it and as the inbox stores it,
/// `{"signedPayload":"<JWS>"}`, read and written without a JSON parser or encoder.
///
/// A compact JWS holds only base64url characters and dots, which JSON never escapes, so for
/// such a body the JWS is the bytes between the quotes. Anything else (other keys, escapes,
/// another character) is left to the general JSON path: ``jws(in:)`` answers `nil`, and
/// ``canonical(_:)`` encodes with `JSONEncoder`.
package enum SignedPayloadBody {
    private static let key = Array(#""signedPayload""#.utf8)

    /// The JWS of a body that is exactly one `signedPayload` member holding a compact JWS
    /// (JSON whitespace allowed around the tokens); `nil` for anything else.
    package static func jws(in body: Data) -> String? {
        body.withUnsafeBytes { jws(in: UnsafeBufferPointer(start: $0.bindMemory(to: UInt8.self).baseAddress, count: $0.count)) }
    }

    /// ``jws(in:)`` for a stored body.
    package static func jws(in body: String) -> String? {
        var body = body
        return body.withUTF8 { jws(in: $0) }
    }

    package static func jws(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var position = 0
        func skipWhitespace() {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D {
                position += 1
            }
        }
        func expect(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
        guard expect(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        guard bytes.count - position >= key.count, key.indices.allSatisfy({ bytes[position + $0] == key[$0] }) else { return nil }
        position += key.count
        guard expect(UInt8(ascii: ":")), expect(UInt8(ascii: "\"")) else { return nil }
        let start = position
        position += compactPrefix(UnsafeBufferPointer(rebasing: bytes[position...]))
        let end = position
        guard end > start, position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        guard expect(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// How many bytes the canonical form adds around a compact JWS: `{"signedPayload":"` and `"}`.
    package static let framing = 20

    /// The stored form of a verified signed payload: what `JSONEncoder` with sorted keys and
    /// unescaped slashes gives for `{"signedPayload": jws}`.
    package static func canonical(_ jws: String) -> Data? {
        var text = jws
        if text.withUTF8({ !$0.isEmpty && isCompact($0) }) { return Data(("{\"signedPayload\":\"" + jws + "\"}").utf8) }
        struct Body: Encodable {
            var signedPayload: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? encoder.encode(Body(signedPayload: jws))
    }

    /// Which bytes are base64url characters or the dot between a JWS's parts.
    private static let compact: [Bool] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Whether every byte is a base64url character or a dot.
    package static func isCompact(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        compact.withUnsafeBufferPointer { table in bytes.allSatisfy { table[Int($0)] } }
    }

    /// The length of the run of base64url characters and dots at the start of `bytes`.
    package static func compactPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        compact.withUnsafeBufferPointer { table in bytes.firstIndex { !table[Int($0)] } ?? bytes.count }
    }
}
