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
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
