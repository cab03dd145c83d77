import Foundation

/// Identifies a chain by the DER bytes of its leaf and intermediate certificates (the root is
/// whichever configured root they chain to, fixed for a given verifier).
struct ChainCacheKey: Hashable, Sendable {
    let leaf: [UInt8]
    let intermediate: [UInt8]
}

/// Identifies a cached value by exact bytes: a JWS protected header's base64url text, or the
/// certificates embedded in a receipt.
///
/// Apple signs every JWS of one leaf certificate with the same header, so an identical header
/// means an identical `alg` and x5c chain; an app's receipts embed the same few certificates.
/// Hashing samples the bytes (their count, their first 640 bytes — where a JWS header's leaf
/// certificate and a receipt's first certificate's serial number and validity sit — and their
/// last 64) instead of reading several kilobytes; equality still compares every byte. Only
/// values whose chain verified are ever inserted, so crafted collisions cannot grow a bucket.
struct ExactBytesKey: Hashable, Sendable {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// The same key holding only its own bytes, for storing in a cache (a slice would keep all
    /// of the input it was cut from alive).
    func compacted() -> ExactBytesKey {
        ExactBytesKey(bytes: Array(bytes))
    }

    static func == (lhs: ExactBytesKey, rhs: ExactBytesKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return memcmp(leftBase, rightBase, left.count) == 0
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { raw in
            let head = min(raw.count, 640)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[0..<head]))
            let tail = max(head, raw.count - 64)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[tail..<raw.count]))
        }
    }
}

/// A JWS protected header, identified by its exact base64url text.
typealias HeaderCacheKey = ExactBytesKey
