/// Decoding of DER INTEGER content octets.
enum ReceiptIntegerDecoding {
    /// Two's-complement big-endian content octets as `Int64`, or `nil` if empty or wider than 64 bits.
    static func int64(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard let first = bytes.first else { return nil }
        let negative = first & 0x80 != 0
        var trimmed = bytes
        while trimmed.count > 1, let lead = trimmed.first, lead == (negative ? 0xFF : 0x00) {
            trimmed = trimmed.dropFirst()
        }
        guard trimmed.count <= 8 else { return nil }
        if trimmed.count == 8, let lead = trimmed.first, (lead & 0x80 != 0) != negative { return nil }
        var value: Int64 = negative ? -1 : 0
        for byte in trimmed {
            value = (value << 8) | Int64(byte)
        }
        return value
    }
}
