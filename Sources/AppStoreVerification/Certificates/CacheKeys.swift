/// Identifies a chain by the DER bytes of its leaf and intermediate certificates (the root is
/// whichever configured root they chain to, fixed for a given verifier).
struct ChainCacheKey: Hashable, Sendable {
    let leaf: [UInt8]
    let intermediate: [UInt8]
}

/// Identifies a JWS protected header by its exact base64url text.
///
/// Apple signs every JWS of one leaf certificate with the same header, so an identical header
/// means an identical `alg` and x5c chain: a hit skips decoding the header and its certificates.
/// Hashing samples the text (its length, its start, where the leaf certificate sits, and its
/// end) instead of reading all ~3.4 kB; equality still compares every byte. Only headers whose
/// chain verified are ever inserted, so crafted collisions cannot grow a bucket.
struct HeaderCacheKey: Hashable, Sendable {
    let bytes: [UInt8]

    static func == (lhs: HeaderCacheKey, rhs: HeaderCacheKey) -> Bool {
        lhs.bytes == rhs.bytes
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
