import Foundation
import StorekeeperStore
import Testing

@Suite("Customer attributes and customer pages")
struct CustomerAttributeStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    @Test("attributes are set, removed and kept per app; an older write loses to a newer one", arguments: TestBackend.available)
    func attributesRoundTrip(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let t0 = Self.t0
            try await store.setCustomerAttributes(
                appId: "a", customerId: "ann",
                [
                    CustomerAttribute(key: "$email", value: "ann@example.com", updatedAt: t0),
                    CustomerAttribute(key: "plan", value: "gold", updatedAt: t0),
                ], at: t0)
            #expect(try await store.customerExists(appId: "a", customerId: "ann"))
            #expect(try await store.customerAttributes(appId: "a", customerId: "ann").map(\.key) == ["$email", "plan"])
            // Older than what is stored: ignored. Newer: wins. A nil value removes it.
            try await store.setCustomerAttributes(
                appId: "a", customerId: "ann",
                [
                    CustomerAttribute(key: "$email", value: "old@example.com", updatedAt: t0 - 60),
                    CustomerAttribute(key: "plan", value: nil, updatedAt: t0 + 60),
                ], at: t0 + 60)
            let kept = try await store.customerAttributes(appId: "a", customerId: "ann")
            #expect(kept.first { $0.key == "$email" }?.value == "ann@example.com")
            #expect(kept.first { $0.key == "plan" }.map { $0.value == nil } == true)
            #expect(try await store.customerAttributes(appId: "b", customerId: "ann").isEmpty)
        }
    }

    @Test("a customer keeps at most the limit of attributes; a write past it changes nothing", arguments: TestBackend.available)
    func attributeLimit(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let many = (0..<CustomerAttribute.maximumPerCustomer).map { CustomerAttribute(key: "k\($0)", value: "v", updatedAt: Self.t0) }
            try await store.setCustomerAttributes(appId: "a", customerId: "bob", many, at: Self.t0)
            await #expect(throws: StoreError.self) {
                try await store.setCustomerAttributes(
                    appId: "a", customerId: "bob", [CustomerAttribute(key: "one-more", value: "v", updatedAt: Self.t0)], at: Self.t0)
            }
            #expect(try await store.customerAttributes(appId: "a", customerId: "bob").count == CustomerAttribute.maximumPerCustomer)
        }
    }

    @Test("customer pages walk an app's customers in byte order, each once", arguments: TestBackend.available)
    func customerPages(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let ids = ["b", "a", "Z", "zoé", "zoe\u{301}", "$RCAnonymousID:1", "a b", "ä"]
            for id in ids { try await store.apply(Changeset(appId: "a", at: Self.t0, links: [CustomerLink(customerId: id)])) }
            try await store.apply(Changeset(appId: "other", at: Self.t0, links: [CustomerLink(customerId: "x")]))
            var walked: [String] = []
            var after: String?
            while true {
                let page = try await store.customerPage(appId: "a", after: after, limit: 3)
                walked += page
                guard page.count == 3, let last = page.last else { break }
                after = last
            }
            let expected = ids.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
            #expect(walked.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
        }
    }
}
