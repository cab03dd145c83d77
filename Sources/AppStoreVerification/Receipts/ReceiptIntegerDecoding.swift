/// Decoding of DER INTEGER content octets.
enum ReceiptIntegerDecoding {
    /// Two's-complement big-endian content octets as `Int64`, or `nil` if empty or wider than 64 bits.
    static func int64(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard let first = bytes.first else { return nil }
        let negative = first & 0x80 != 0
        // Redundant leading sign octets (BER allows them) do not count towards the width.
        var start = bytes.startIndex
        while bytes.endIndex - start > 1, bytes[start] == (negative ? 0xFF : 0x00) { start += 1 }
        let count = bytes.endIndex - start
        guard count <= 8 else { return nil }
        if count == 8, (bytes[start] & 0x80 != 0) != negative { return nil }
        var value: Int64 = negative ? -1 : 0
        for index in start..<bytes.endIndex {
            value = (value << 8) | Int64(bytes[index])
        }
        return value
    }
}
