import Foundation
import HTTPTypes
import HummingbirdTesting
import StorekeeperServer
import Testing

/// Customer ids are compared as exact bytes everywhere (docs/security.md, "Customer ids are
/// exact bytes"): the token check agrees with the store, so a spelling that Swift's `String ==`
/// finds equal (canonical equivalence) is still another customer.
@Suite("Security: customer ids are exact bytes")
struct CustomerIdBytesTests {
    /// Stored customer, the other spelling (both percent-encoded as a client sends them).
    static let pairs = [
        ("zoe%CC%81", "zo%C3%A9"),  // é as e + U+0301 (NFD), and as U+00E9 (NFC)
        ("%E2%84%ABngstrom", "%C3%85ngstrom"),  // U+212B ANGSTROM SIGN, and U+00C5
    ]

    @Test("a token for one spelling neither reads nor writes the customer stored under the other", arguments: ServerBackend.available)
    func tokenForAnotherSpelling(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let grant = #"{"productId":"pro.lifetime","reason":"gift"}"#
            let report = #"{"kind":"not_charged","productId":"pro.monthly","reason":"payment sheet failed"}"#
            let t0 = Fixture.t0
            let tx = try SignedData.transaction(id: "8300001", original: "8300001", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
            for (stored, other) in Self.pairs {
                #expect(
                    try await client.call(.post, "/v1/apps/alpha/customers/\(stored)/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
                let token = try await KeyModelTests.mint(client, customer: other)
                for (method, path, body) in [
                    (.get, "", nil), (.get, "/events", nil), (.get, "/signed-state", nil), (.post, "/problems", report),
                    (.post, "/purchases", purchase),
                ] as [(HTTPRequest.Method, String, String?)] {
                    let response = try await client.call(method, "/v1/apps/alpha/customers/\(stored)\(path)", key: token, body: body)
                    #expect(response.status == 403, "\(method) \(stored)\(path) with the token of \(other): \(response.text)")
                }
                // Its own spelling is a customer nobody created: nothing of the stored one shows.
                #expect(try await client.call(.get, "/v1/apps/alpha/customers/\(other)", key: token).status == 404)
                #expect(try await client.call(.get, "/v1/apps/alpha/customers/\(other)", key: Fixture.alphaKey).status == 404)
                let owner = try await client.call(
                    .get, "/v1/apps/alpha/customers/\(stored)", key: try await KeyModelTests.mint(client, customer: stored))
                #expect(owner.status == 200 && (owner.json["entitlements"] as? [[String: Any]])?.isEmpty == false, "\(owner.text)")
            }
            #expect(try await harness.store.problems(appId: "alpha", status: nil, limit: 10).isEmpty)
            #expect(try await harness.store.ledger(appId: "alpha", transactionId: "8300001").isEmpty)
        }
    }
}
