import Foundation
import SQLKit
import Testing

@testable import StorekeeperStore

/// The registry of issued app account tokens, on every backend, and schema step 15, which
/// records the tokens an earlier version linked as issued to their owners.
@Suite("Store: app account tokens")
struct AppAccountTokenStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)

    @Test(
        "a customer is issued one token: the first proposal wins, concurrent asks all get it, and it is the customer's alias",
        arguments: TestBackend.available)
    func issue(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    let proposed = String(format: "7f1e0c2a-0000-4000-8000-0000000000%02d", index)
                    group.addTask { try await store.issueAppAccountToken(appId: "a", customerId: "alice", proposed: proposed, at: Self.t0) }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let token = try #require(tokens.first)
            #expect(Set(tokens).count == 1)
            #expect(try await store.issueAppAccountToken(appId: "a", customerId: "alice", proposed: UUID().uuidString, at: Self.t0) == token)
            #expect(try await store.customer(appId: "a", alias: .appAccountToken(token.uppercased())) == "alice")
            #expect(try await store.customerExists(appId: "a", customerId: "alice"))
            // Another app's customer of the same id has a token of its own.
            #expect(
                try await store.issueAppAccountToken(appId: "b", customerId: "alice", proposed: "7f1e0c2a-0000-4000-8000-0000000000bb", at: Self.t0)
                    != token)
            #expect(try await store.customer(appId: "b", alias: .appAccountToken(token)) == nil)
            // A token another customer holds is never issued to a second one.
            await #expect(throws: StoreError.self) {
                try await store.issueAppAccountToken(appId: "a", customerId: "bob", proposed: token, at: Self.t0)
            }
            #expect(try await store.customer(appId: "a", alias: .appAccountToken(token)) == "alice")
            #expect(
                try await store.issueAppAccountToken(appId: "a", customerId: "bob", proposed: "7f1e0c2a-0000-4000-8000-0000000000cc", at: Self.t0)
                    == "7f1e0c2a-0000-4000-8000-0000000000cc")
        }
    }

    @Test("rotating revokes every token the customer held and makes the new one current", arguments: TestBackend.available)
    func rotate(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let old = try await store.issueAppAccountToken(
                appId: "a", customerId: "alice", proposed: "7f1e0c2a-0000-4000-8000-000000000001", at: Self.t0)
            // A token an earlier version linked, held beside the current one.
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    links: [CustomerLink(customerId: "alice", aliases: [.appAccountToken("7f1e0c2a-0000-4000-8000-000000000002")])]))
            let revoked = try await store.rotateAppAccountToken(
                appId: "a", customerId: "alice", proposed: "7F1E0C2A-0000-4000-8000-000000000003", at: Self.t0.addingTimeInterval(60))
            #expect(revoked.sorted() == [old, "7f1e0c2a-0000-4000-8000-000000000002"])
            for token in revoked { #expect(try await store.customer(appId: "a", alias: .appAccountToken(token)) == nil) }
            #expect(try await store.customer(appId: "a", alias: .appAccountToken("7f1e0c2a-0000-4000-8000-000000000003")) == "alice")
            #expect(
                try await store.issueAppAccountToken(appId: "a", customerId: "alice", proposed: UUID().uuidString, at: Self.t0)
                    == "7f1e0c2a-0000-4000-8000-000000000003")
            // A customer never issued one gets its first by rotation too.
            #expect(
                try await store.rotateAppAccountToken(appId: "a", customerId: "bob", proposed: "7f1e0c2a-0000-4000-8000-000000000004", at: Self.t0)
                    == [])
        }
    }

    @Test(
        "schema 15 records the tokens an earlier version linked as issued to their owners: each stays its owner's, the newest becomes current",
        arguments: TestBackend.available.filter { $0 != .memory })
    func migration(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let database = try #require(store as? SQLStore)
            try await database.backend.transaction { db in
                try await db.raw("DROP TABLE app_account_tokens").run()
                try await db.raw("DELETE FROM schema_migrations WHERE version >= 15").run()
            }
            #expect(try await store.schemaVersion() == 14)
            // What the previous release linked: alice's derived token, then one an offer bound; bob's.
            let links: [(String, String, TimeInterval)] = [
                ("alice", "8a1e0c2a-0000-8000-8000-000000000001", 0), ("alice", "7f1e0c2a-0000-4000-8000-000000000002", 60),
                ("bob", "8a1e0c2a-0000-8000-8000-000000000003", 0),
            ]
            for (customer, token, offset) in links {
                try await store.apply(
                    Changeset(
                        appId: "a", at: Self.t0.addingTimeInterval(offset),
                        links: [CustomerLink(customerId: customer, aliases: [.appAccountToken(token)])]))
            }
            #expect(try await store.migrate() == Array(15...SQLStore.latestSchemaVersion))
            for (customer, token, _) in links {
                #expect(try await store.customer(appId: "a", alias: .appAccountToken(token)) == customer)
            }
            #expect(
                try await store.issueAppAccountToken(appId: "a", customerId: "alice", proposed: UUID().uuidString, at: Self.t0)
                    == "7f1e0c2a-0000-4000-8000-000000000002")
            #expect(
                try await store.issueAppAccountToken(appId: "a", customerId: "bob", proposed: UUID().uuidString, at: Self.t0)
                    == "8a1e0c2a-0000-8000-8000-000000000003")
            #expect(
                try await store.issueAppAccountToken(appId: "a", customerId: "carol", proposed: "7f1e0c2a-0000-4000-8000-000000000009", at: Self.t0)
                    == "7f1e0c2a-0000-4000-8000-000000000009")
        }
    }
}
