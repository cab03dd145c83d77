import Foundation
import Testing

@testable import StorekeeperKit

@Suite("StorekeeperKit: identity, eligibility and promotional offers")
struct IdentityAndOffersTests {
    func make(_ server: FakeServer, store: FakeStore, directory: URL, user: String?) throws -> Storekeeper {
        try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: URL(string: "https://sk.example")!, appId: "app", apiKey: "sk_app", appUserId: user, stateDirectory: directory),
            store: store, transport: server)
    }

    @Test("an anonymous id is made once per install; identify posts the store's purchases for the user and says which stayed elsewhere")
    func identify() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let store = FakeStore()
        let anonymous = try make(server, store: store, directory: directory, user: nil)
        let id = await anonymous.customerId
        #expect(id.hasPrefix("anon-") && id.count == 37)
        #expect(try await make(server, store: store, directory: directory, user: nil).customerId == id)

        store.state.withLock { $0.entitlements = [FakeStore.transaction("e1")] }
        let (info, kept) = try await anonymous.identify(appUserId: "user-42")
        #expect(info.customerId == "user-42" && kept == 0)
        #expect(await anonymous.customerId == "user-42")
        #expect(server.requests(endingWith: "/purchases").map(\.url.path) == ["/v1/apps/app/customers/user-42/purchases"])

        server.state.withLock { $0.conflictingCustomers = ["user-43"] }
        #expect(try await anonymous.identify(appUserId: "user-43").keptByAnotherCustomer == 1)
    }

    @Test("eligibility comes from the server per subscription group; a customer it has not met may take the introductory offer")
    func eligibility() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let fresh = try await make(server, store: FakeStore(), directory: directory, user: "nobody").eligibility(for: ["premium.monthly"])
        #expect(fresh["premium.monthly"] == ProductEligibility(introductoryOffer: true, promotionalOffer: false, winBackOfferIds: []))
        let known = try await make(server, store: FakeStore(), directory: directory, user: "known").eligibility(for: ["premium.monthly"])
        #expect(known["premium.monthly"] == ProductEligibility(introductoryOffer: false, promotionalOffer: true, winBackOfferIds: ["WB1"]))
    }

    @Test("a promotional offer is signed by the server for the customer's token and handed to the store")
    func promotionalOffer() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("p1")) }
        let storekeeper = try make(server, store: store, directory: directory, user: "alice")
        #expect(await storekeeper.purchase(productId: "premium.monthly", promotionalOfferId: "WINBACK").group == "delivered")
        let offer = try #require(store.state.withLock { $0.lastOptions?.promotionalOffer })
        #expect(offer.offerId == "WINBACK" && offer.keyId == "KEY1" && offer.signature == "c2lnbmF0dXJl")
        let request = try #require(server.requests(endingWith: "/offers/sign").first)
        let body = try #require(try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: String])
        #expect(body["customerId"] == "alice" && body["offerId"] == "WINBACK")
        #expect(body["appAccountToken"] == server.state.withLock { $0.issuedTokens["alice"] }?.uuidString.lowercased())
        #expect(store.state.withLock { $0.lastOptions?.appAccountToken } == server.state.withLock { $0.issuedTokens["alice"] })
    }
}
