import Crypto
import Foundation

/// A SHA-256 digest of a value's canonical JSON (sorted keys, dates as milliseconds), used
/// for idempotency keys that must be identical for identical content on every machine.
enum StableDigest {
    static func hex(of value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let data = (try? encoder.encode(value)) ?? Data()
        return hex(of: data)
    }

    static func hex(of data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: data) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
