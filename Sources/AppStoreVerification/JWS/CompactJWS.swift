/// The three segments of a compact JWS (`header.payload.signature`), as byte ranges of its text.
///
/// Parsing only locates the two dots; each segment is decoded when needed, once.
struct CompactJWS {
    let header: Range<Int>
    let payload: Range<Int>
    let signature: Range<Int>

    /// The bytes covered by the signature: `header.payload`.
    var signingInput: Range<Int> { header.lowerBound..<payload.upperBound }

    /// Splits `bytes` into three segments, or returns `nil` unless it contains exactly two dots.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
            let second = bytes[(first + 1)...].firstIndex(of: dot),
            bytes[(second + 1)...].firstIndex(of: dot) == nil
        else { return nil }
        header = 0..<first
        payload = (first + 1)..<second
        signature = (second + 1)..<bytes.count
    }
}
