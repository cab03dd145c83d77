import Foundation

/// The three segments of a compact JWS (`header.payload.signature`) as byte ranges of its
/// text: ``CompactJWS`` parsed in place, for the verifier's hot path.
///
/// Parsing only locates the two dots; each segment is decoded when needed, once, with
/// ``Base64URL/decode(segment:)``.
public struct JWSSegments: Sendable {
    public let header: Range<Int>
    public let payload: Range<Int>
    public let signature: Range<Int>

    /// The bytes covered by the signature: `header.payload`.
    public var signingInput: Range<Int> { header.lowerBound..<payload.upperBound }

    /// Splits `bytes` into three segments, or returns `nil` unless it contains exactly two dots.
    public init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = Self.indexOfDot(in: bytes, from: 0),
            let second = Self.indexOfDot(in: bytes, from: first + 1),
            Self.indexOfDot(in: bytes, from: second + 1) == nil
        else { return nil }
        header = 0..<first
        payload = (first + 1)..<second
        signature = (second + 1)..<bytes.count
    }

    /// The index of the first `.` at or after `start` (`memchr`, as headers run to kilobytes).
    private static func indexOfDot(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
