import Foundation
import SQLKit
import Synchronization

extension SQLStore {
    /// The headers of compacted signed text (``CompactSignedText``) this process has stored or
    /// read, by digest. A digest names its header's bytes, so what is known here is true of
    /// every database; a header is still written with each transaction that refers to it.
    static let signingHeaders = Mutex<[String: String]>([:])

    /// At most this many headers are kept in memory (a signing key makes one; the App Store has
    /// a few a year); past it the memory starts again.
    static let signingHeadersKept = 4_096

    /// Writes the signing headers that stored text refers to, in the caller's transaction (a
    /// header known to the database already is left as it is).
    static func storeSigningHeaders(_ headers: [CompactSignedText.Header], _ db: any SQLDatabase) async throws {
        var seen: Set<String> = []
        for header in headers where seen.insert(header.digest).inserted {
            try await db.raw(
                """
                INSERT INTO signing_headers (digest, header) VALUES (\(bind: header.digest), \(bind: header.text))
                ON CONFLICT (digest) DO NOTHING
                """
            ).run()
            remember([header.digest: header.text])
        }
    }

    /// The stored forms of the ledger entries' signed payloads, worked out before a transaction
    /// (not while it holds the writer).
    static func storedRaws(_ entries: [LedgerEntry]) -> (raws: [String?], headers: [CompactSignedText.Header]) {
        var headers: [CompactSignedText.Header] = []
        let raws = entries.map { entry in
            entry.raw.map { text in
                let (stored, header) = CompactSignedText.compact(text)
                if let header { headers.append(header) }
                return stored
            }
        }
        return (raws, headers)
    }

    /// The texts `stored` hold, the headers this process does not know read first.
    static func expandedSignedTexts(_ stored: [String?], _ db: any SQLDatabase) async throws -> [String?] {
        let headers = try await loadSigningHeaders(for: stored, db)
        return try stored.map { text in try text.map { try expandedSignedText($0, headers: headers) } }
    }

    /// The headers `stored` refers to: those this process knows, and the others read. Returned
    /// rather than only remembered: the memory may start again (past its limit) before they are
    /// used.
    static func loadSigningHeaders(for stored: [String?], _ db: any SQLDatabase) async throws -> [String: String] {
        let digests = Set(stored.compactMap { $0.flatMap(CompactSignedText.headerDigest(of:)) })
        var headers = signingHeaders.withLock { known in
            digests.reduce(into: [String: String]()) { found, digest in found[digest] = known[digest] }
        }
        let missing = digests.subtracting(headers.keys)
        if !missing.isEmpty {
            var found: [String: String] = [:]
            for row in try await db.raw("SELECT digest, header FROM signing_headers WHERE digest IN (" + list(missing.sorted()) + ")").all() {
                found[try row.string("digest")] = try row.string("header")
            }
            remember(found)
            headers.merge(found) { old, _ in old }
        }
        return headers
    }

    /// The text `stored` holds, from `headers` (``loadSigningHeaders(for:_:)``).
    static func expandedSignedText(_ stored: String, headers: [String: String]) throws -> String {
        guard stored.first == CompactSignedText.marker else { return stored }
        return try CompactSignedText.expand(stored) { digest in headers[digest] }
    }

    private static func remember(_ found: [String: String]) {
        guard !found.isEmpty else { return }
        signingHeaders.withLock { headers in
            if headers.count + found.count > signingHeadersKept { headers.removeAll() }
            headers.merge(found) { old, _ in old }
        }
    }
}
