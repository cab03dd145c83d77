import AppStoreModels
import Foundation
import SQLKit
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// Signed text is stored compactly (each signing header once, payloads decoded) and read back
/// byte for byte; anything else is stored as it is.
@Suite("Signed text stored compactly")
struct CompactSignedTextTests {
    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacing("=", with: "").replacing("+", with: "-").replacing("/", with: "_")
    }

    /// A header as the App Store's: an algorithm and a chain of three certificates (random bytes here).
    static func header(seed: UInt64) -> String {
        var random = SplitMix64(seed: seed)
        let certificates = (0..<3).map { _ in Data((0..<700).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString() }
        return base64URL(#"{"alg":"ES256","x5c":["\#(certificates.joined(separator: #"",""#))"]}"#)
    }

    static func signature(seed: UInt64) -> String {
        var random = SplitMix64(seed: seed)
        return Data((0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
            .replacing("=", with: "").replacing("+", with: "-").replacing("/", with: "_")
    }

    /// A notification as Apple sends it: its data holds a transaction and a renewal info signed
    /// with the same header.
    static func notification(seed: UInt64, uuid: String = "9f1c") -> (body: String, transaction: String) {
        let header = header(seed: seed)
        let transaction =
            header + "." + base64URL(#"{"transactionId":"2000001","originalTransactionId":"2000000","productId":"p"}"#) + "."
            + signature(seed: seed + 1)
        let renewal = header + "." + base64URL(#"{"autoRenewStatus":1,"originalTransactionId":"2000000"}"#) + "." + signature(seed: seed + 2)
        let payload =
            #"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","data":{"signedTransactionInfo":"\#(transaction)","#
            + #""signedRenewalInfo":"\#(renewal)","environment":"Sandbox"},"signedDate":1700000000000}"#
        let jws = header + "." + base64URL(payload) + "." + signature(seed: seed + 3)
        return (#"{"signedPayload":"\#(jws)"}"#, transaction)
    }

    static func roundTrip(_ text: String) throws -> (stored: String, back: String) {
        let (stored, header) = CompactSignedText.compact(text)
        let back = try CompactSignedText.expand(stored) { $0 == header?.digest ? header?.text : nil }
        return (stored, back)
    }

    @Test("a notification's body and a transaction come back byte for byte, in under a fifth of their size")
    func notificationsShrink() throws {
        let (body, transaction) = Self.notification(seed: 7)
        let storedBody = try Self.roundTrip(body)
        #expect(storedBody.back == body)
        #expect(storedBody.stored.utf8.count * 5 < body.utf8.count, "\(storedBody.stored.utf8.count) of \(body.utf8.count)")
        #expect(storedBody.stored.hasPrefix("\u{1}B"))
        let storedTransaction = try Self.roundTrip(transaction)
        #expect(storedTransaction.back == transaction)
        #expect(storedTransaction.stored.utf8.count * 3 < transaction.utf8.count)
        #expect(CompactSignedText.headerDigest(of: storedBody.stored) == CompactSignedText.headerDigest(of: storedTransaction.stored))
    }

    @Test(
        "text that is no such JWS is stored as it is, and text starting with U+0001 is escaped",
        arguments: [
            "", "{}", #"{"notification_type":"DID_RENEW","password":"x"}"#, "a.b", "a.b.c.d", "a..c", "a.b+.c", "a.b=.c",
            // A payload that is not the canonical encoding of its bytes (a trailing bit set), and one that is not UTF-8.
            "eyJ9.eyJ.c2ln", "eyJ9.gA.c2ln",
            // A payload holding U+0001 or U+0002 (escaped in its JSON as text, raw in its bytes).
            "eyJ9." + base64URL("{\"a\":\"\u{1}\"}") + ".c2ln", "eyJ9." + base64URL("\u{2}") + ".c2ln",
            "\u{1}J" + String(repeating: "0", count: 64) + "sig.payload", "\u{1}", #"{"signedPayload":""}"#,
            #"{"signedPayload":"a.b"}"#, "é.b.c", "eyJ9.eyJ9.c2ln\n",
        ])
    func others(text: String) throws {
        let (stored, back) = try Self.roundTrip(text)
        #expect(back == text)
        if !text.hasPrefix("\u{1}") && !text.hasPrefix("eyJ9.eyJ9") { #expect(stored == text) }
    }

    @Test("random text and random JWS-shaped text come back as they were (1,000 each)")
    func fuzz() throws {
        var random = SplitMix64(seed: 36)
        let alphabet = Array("ABCxyz019-_.+/=\"{}:,\u{1}\u{2}é😀 \\")
        for round in 0..<2_000 {
            let text: String
            if round % 2 == 0 {
                text = String((0..<Int.random(in: 0..<80, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            } else {
                let payload = String((0..<Int.random(in: 1..<60, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
                let header = Self.base64URL(#"{"alg":"ES256"}"#)
                let inner = Int.random(in: 0..<3, using: &random) == 0 ? header : ""
                text = header + "." + Self.base64URL(payload + inner) + "." + Self.signature(seed: UInt64(round))
            }
            #expect(try Self.roundTrip(text).back == text)
            #expect(try Self.roundTrip(#"{"signedPayload":""# + text + #""}"#).back == #"{"signedPayload":""# + text + #""}"#)
        }
    }

    @Test("a stored form whose header is missing, or that is cut short, is a corrupt row, not a crash")
    func corrupt() throws {
        let (stored, _) = CompactSignedText.compact(Self.notification(seed: 3).body)
        #expect(throws: StoreError.self) { try CompactSignedText.expand(stored) { _ in nil } }
        for length in [1, 2, 10, 66, 67] {
            let cut = String(stored.prefix(length))
            #expect(throws: StoreError.self) { try CompactSignedText.expand(cut) { _ in "eyJ9" } }
        }
    }

    @Test(
        "stored and read back through the store: the inbox body and the ledger's payload are compact in the database, whole when read, on every SQL database",
        arguments: TestBackend.available.filter { $0 != .memory })
    func throughTheStore(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let (body, transaction) = Self.notification(seed: 11)
            let row = InboxNotification(appId: "a", idempotencyKey: "k", version: .v2, body: body, receivedAt: StoreContractTests.t0)
            guard case .inserted(let id) = try await store.receive(row) else { throw StoreError(code: .corruptRow, message: "not inserted") }
            var entry = LedgerEntry(
                appId: "a", fact: .purchase(PurchaseFact.manualGrant(id: "2000001", productId: "p", startDate: StoreContractTests.t0, endDate: nil)),
                source: "notificationV2", raw: transaction, recordedAt: StoreContractTests.t0)
            entry.customerId = "c"
            try await store.apply(Changeset(appId: "a", at: StoreContractTests.t0, entries: [entry]))
            let (storedBody, storedRaw, headers) = try await store.backend.read { db in
                (
                    try await db.raw("SELECT body FROM notification_bodies WHERE id = \(bind: id)").first()?.decode(column: "body", as: String.self),
                    try await db.raw("SELECT raw FROM ledger WHERE app_id = 'a'").first()?.decode(column: "raw", as: String.self),
                    try await db.raw("SELECT COUNT(*) AS n FROM signing_headers").first()?.decode(column: "n", as: Int.self)
                )
            }
            #expect((storedBody?.utf8.count ?? .max) * 5 < body.utf8.count)
            #expect((storedRaw?.utf8.count ?? .max) * 3 < transaction.utf8.count)
            #expect(headers == 1)
            // Read by a process that has not seen the header: it is read from the database.
            SQLStore.signingHeaders.withLock { $0.removeAll() }
            #expect(try await store.notification(id: id)?.body == body)
            #expect(
                try await store.claimPending(limit: 5, owner: "w", now: StoreContractTests.t0, leaseUntil: StoreContractTests.t0 + 30).first?.body
                    == body)
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter(includesBodies: true)).first?.body == body)
            SQLStore.signingHeaders.withLock { $0.removeAll() }
            #expect(try await store.ledger(appId: "a", customerId: "c").first?.raw == transaction)
        }
    }
}
