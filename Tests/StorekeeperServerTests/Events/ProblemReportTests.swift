import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorekeeperServer
import StorekeeperStore
import Testing

/// What an app may report about a customer's purchase: only that customer's own, and only so
/// many.
@Suite("Problems: reports name the reporter's own purchases, within a quota")
struct ProblemReportTests {
    /// A signed transaction of chain `id`, bought at the fixture's start.
    static func signed(_ id: String, _ harness: ServerHarness) throws -> String {
        let t0 = Fixture.t0
        return try harness.ca.signTransaction(
            try SignedData.transaction(id: id, original: id, purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0))
    }

    /// `customer` buys chain `id`, posted by the operator's backend.
    static func purchase(_ customer: String, _ id: String, _ harness: ServerHarness, _ client: any TestClientProtocol) async throws {
        let body = "{\"signedTransaction\": \"\(try signed(id, harness))\"}"
        #expect(try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/purchases", key: Fixture.alphaKey, body: body).status == 200)
    }

    static func report(
        _ customer: String, kind: String = "charged_not_delivered", transaction: String?, signed: String? = nil, key: String,
        _ client: any TestClientProtocol
    ) async throws -> (status: Int, json: [String: Any], text: String) {
        var body: [String: Any] = ["kind": kind, "reason": "the download failed"]
        body["transactionId"] = transaction
        body["signedTransaction"] = signed
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/problems", key: key, body: text)
    }

    static func errorCode(_ response: (status: Int, json: [String: Any], text: String)) -> String? {
        (response.json["error"] as? [String: Any])?["code"] as? String
    }

    @Test(
        "another customer's transaction is refused (409); an unknown or unlinked one needs its signed transaction (422); the buyer's ticket is hers",
        arguments: ServerBackend.available)
    func ownTransactionsOnly(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            try await Self.purchase("alice", "8601", harness, client)
            let mallory = try await KeyModelTests.mint(client, customer: "mallory")
            let alice = try await KeyModelTests.mint(client, customer: "alice")

            let stolen = try await Self.report("mallory", transaction: "8601", key: mallory, client)
            #expect(stolen.status == 409 && Self.errorCode(stolen) == "transaction_belongs_to_another_customer", "\(stolen.text)")
            // Even her signed transaction (leaked) does not make it mallory's.
            let leaked = try await Self.report("mallory", transaction: nil, signed: try Self.signed("8601", harness), key: mallory, client)
            #expect(leaked.status == 409, "\(leaked.text)")
            #expect(try await Self.report("mallory", kind: "not_charged", transaction: "8601", key: mallory, client).status == 409)
            let unknown = try await Self.report("mallory", transaction: "424242", key: mallory, client)
            #expect(unknown.status == 422 && Self.errorCode(unknown) == "unknown_transaction", "\(unknown.text)")
            #expect(try await Self.report("mallory", transaction: nil, key: mallory, client).status == 400)
            #expect(try await Self.report("mallory", transaction: nil, signed: "not.a.jws", key: mallory, client).status == 422)

            // A chain only Apple's notifications brought is linked to nobody.
            let t0 = Fixture.t0
            let renewed = try SignedData.transaction(id: "8602", original: "8602", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
            let note = try SignedData.notification(harness.ca, type: "SUBSCRIBED", signed: t0, transaction: renewed, renewal: nil)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: note).status == 200)
            try await harness.processor.drain()
            #expect(try await Self.report("mallory", transaction: "8602", key: mallory, client).status == 422)
            #expect(try await harness.store.problems(appId: "alpha", status: nil, limit: 10).isEmpty)

            // The buyer reports her own; the device that holds a purchase the server never
            // recorded proves it with the signed transaction.
            let own = try await Self.report("alice", transaction: "8601", key: alice, client)
            #expect(own.status == 202 && own.json["opened"] as? String == "true", "\(own.text)")
            let unrecorded = try await Self.report("alice", transaction: "8603", signed: try Self.signed("8603", harness), key: alice, client)
            #expect(unrecorded.status == 202 && unrecorded.json["opened"] as? String == "true", "\(unrecorded.text)")
            let open = try await harness.store.problems(appId: "alpha", status: .open, limit: 10)
            #expect(open.count == 2 && open.allSatisfy { $0.customerId == "alice" })
            #expect(open.allSatisfy { $0.amount == Decimal(string: "9.99") && $0.currency == "USD" && $0.evidence["environment"] == "Sandbox" })
            #expect(try await Self.report("mallory", kind: "not_charged", transaction: nil, key: mallory, client).status == 202)
        }
    }

    @Test(
        "a customer files ten reports at once, then one a minute (429 with Retry-After), and keeps at most five tickets open (409)",
        arguments: ServerBackend.available)
    func quota(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let mallory = try await KeyModelTests.mint(client, customer: "mallory")
            var statuses: [Int: Int] = [:]
            for _ in 0..<200 {
                statuses[try await Self.report("mallory", kind: "not_charged", transaction: nil, key: mallory, client).status, default: 0] += 1
            }
            #expect(statuses == [202: 10, 429: 190])
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(mallory)"
            let refused = try await client.execute(
                uri: "/v1/apps/alpha/customers/mallory/problems", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"kind":"not_charged","reason":"again"}"#))
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "60")
            #expect(String(buffer: refused.body).contains("too_many_requests"))
            #expect(try await harness.store.problems(appId: "alpha", status: .noted, limit: 1000).count == 10)
            // Others are not held back; a minute later mallory may file one more.
            #expect(try await Self.report("ann", kind: "not_charged", transaction: nil, key: Fixture.alphaKey, client).status == 202)
            harness.clock.set(harness.clock.now + 60)
            #expect(try await Self.report("mallory", kind: "not_charged", transaction: nil, key: mallory, client).status == 202)
            #expect(try await Self.report("mallory", kind: "not_charged", transaction: nil, key: mallory, client).status == 429)

            // Five open tickets at most; a repeat of one only counts; one resolved makes room.
            for index in 1...6 { try await Self.purchase("cara", "871\(index)", harness, client) }
            for index in 1...5 {
                #expect(try await Self.report("cara", transaction: "871\(index)", key: Fixture.alphaKey, client).json["opened"] as? String == "true")
            }
            let sixth = try await Self.report("cara", transaction: "8716", key: Fixture.alphaKey, client)
            #expect(sixth.status == 409 && Self.errorCode(sixth) == "too_many_open_problems", "\(sixth.text)")
            let repeated = try await Self.report("cara", transaction: "8711", key: Fixture.alphaKey, client)
            #expect(repeated.status == 202 && repeated.json["opened"] as? String == "false")
            let ticket = try #require(try await harness.store.problems(appId: "alpha", status: .open, limit: 10).first)
            let resolved = try await client.call(
                .post, "/v1/apps/alpha/problems/\(ticket.id ?? 0)/resolve", key: Fixture.alphaAdmin, body: #"{"reason": "refunded"}"#)
            #expect(resolved.status == 200)
            #expect(try await Self.report("cara", transaction: "8716", key: Fixture.alphaKey, client).json["opened"] as? String == "true")
        }
    }
}
