import Crypto
import Foundation

/// A SHA-256 digest in lowercase hex, for keys that must be identical for identical bytes
/// on every machine.
public enum StableDigest {
    public static func hex(of data: Data) -> String {
        hex(bytes: SHA256.hash(data: data))
    }

    /// `bytes` in lowercase hex, two digits each.
    public static func hex(bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
