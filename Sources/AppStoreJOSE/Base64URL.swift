import Foundation

/// Base64url (RFC 7515 §2) as compact JWS uses it: the project's one codec, for the verifier,
/// the signers, the API client's tokens and the simulator.
///
/// Encoding writes no padding. Decoding is strict, byte for byte as Apple's Python verifier
/// (PyJWT) accepts a JWS segment: the URL-safe alphabet, at most two trailing `=` (only when
/// the segment length is a multiple of four), never a lone trailing character, and unused
/// trailing bits zero (the encoding must be canonical). ``decodeStandard(_:)`` reads x5c
/// certificates as Python's `b64decode(validate=True)` does: the standard alphabet with correct
/// `=` padding.
public enum Base64URL {
    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some DataProtocol) -> String {
        // One pass over the base64 bytes: `+` → `-`, `/` → `_`, padding dropped.
        var utf8 = Array(Data(bytes).base64EncodedData())
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        for index in utf8.indices {
            if utf8[index] == UInt8(ascii: "+") {
                utf8[index] = UInt8(ascii: "-")
            } else if utf8[index] == UInt8(ascii: "/") {
                utf8[index] = UInt8(ascii: "_")
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Decodes base64url text, or returns `nil` when PyJWT would reject it.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(segment: $0) }
    }

    /// Decodes a base64url JWS segment given as its bytes, or returns `nil` when PyJWT would
    /// reject it.
    public static func decode(segment input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let end = unpaddedEnd(input), end == input.count || input.count % 4 == 0 else { return nil }
        return decode(UnsafeBufferPointer(rebasing: input[0..<end]), table: urlTable, requireCanonical: true)
    }

    /// Decodes a standard base64 string with mandatory padding, or returns `nil`.
    public static func decodeStandard(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in
            guard input.count % 4 == 0, let end = unpaddedEnd(input) else { return nil }
            return decode(UnsafeBufferPointer(rebasing: input[0..<end]), table: standardTable, requireCanonical: false)
        }
    }

    /// Decodes base64 in either alphabet (`+/` or `-_`, mixed too), its `=` padding optional,
    /// or returns `nil`: receipts arrive from apps every way. Unused trailing bits are ignored.
    public static func decodeEitherAlphabet(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in
            guard let end = unpaddedEnd(input), input.count % 4 != 1 else { return nil }
            // The `=` written plus those the length still lacks: at most two, as in padded text.
            let missing = (4 - input.count % 4) % 4
            guard input.count - end + missing <= 2 else { return nil }
            return decode(UnsafeBufferPointer(rebasing: input[0..<end]), table: eitherTable, requireCanonical: false)
        }
    }

    /// Where the text ends without its trailing `=` (at most two), or `nil` for more.
    private static func unpaddedEnd(_ input: UnsafeBufferPointer<UInt8>) -> Int? {
        var end = input.count
        while end > 0, input[end - 1] == UInt8(ascii: "=") {
            end -= 1
            if input.count - end > 2 { return nil }
        }
        return end
    }

    /// Decodes unpadded base64 text with the given alphabet table, writing the bytes straight
    /// into the result's storage (a 15 kB notification's payload is decoded at the door).
    private static func decode(_ input: UnsafeBufferPointer<UInt8>, table: [UInt8], requireCanonical: Bool) -> [UInt8]? {
        let count = input.count
        let remainder = count % 4
        if remainder == 1 { return nil }
        let length = count / 4 * 3 + max(0, remainder - 1)
        var valid = true
        let output = table.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
                var index = 0
                var written = 0
                let fullEnd = count - remainder
                while index < fullEnd {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])]
                    let d = table[Int(input[index + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        break
                    }
                    output[written] = a << 2 | b >> 4
                    output[written + 1] = b << 4 | c >> 2
                    output[written + 2] = c << 6 | d
                    index += 4
                    written += 3
                }
                if valid, remainder == 2 {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    valid = (a | b) & 0xC0 == 0 && !(requireCanonical && b & 0x0F != 0)
                    if valid {
                        output[written] = a << 2 | b >> 4
                        written += 1
                    }
                } else if valid, remainder == 3 {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])]
                    valid = (a | b | c) & 0xC0 == 0 && !(requireCanonical && c & 0x03 != 0)
                    if valid {
                        output[written] = a << 2 | b >> 4
                        output[written + 1] = b << 4 | c >> 2
                        written += 2
                    }
                }
                initialized = written
            }
        }
        return valid ? output : nil
    }

    private static let urlTable = makeTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    private static let standardTable = makeTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    private static let eitherTable: [UInt8] = {
        var table = standardTable
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// A 256-entry table from byte to 6-bit value; 0xFF marks bytes outside the alphabet.
    private static func makeTable(_ alphabet: String) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return table
    }
}
