import Foundation
import Testing

@testable import StorekeeperKit

@Suite("StorekeeperKit: the purchase path and the seed's outcome groups")
struct PurchaseDeliveryTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    func make(_ server: FakeServer, store: FakeStore, directory: URL, attempts: Int = 3) throws -> Storekeeper {
        try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: URL(string: "https://sk.example")!, appId: "app", apiKey: "sk_app", appUserId: "alice", stateDirectory: directory,
                deliveryAttempts: attempts),
            store: store, transport: server, clock: TestDeviceClock(wall: start).clock)
    }

    @Test("a purchase the server records is finished and delivered, with the customer's token")
    func delivered() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t1")) }
        let storekeeper = try make(server, store: store, directory: directory)
        let outcome = await storekeeper.purchase(productId: "premium.monthly")
        guard case .delivered(let id, let info) = outcome else {
            Issue.record("not delivered: \(outcome)")
            return
        }
        #expect(id == "t1" && info?.source == .server)
        #expect(store.state.withLock { $0.finished } == ["t1"])
        #expect(store.state.withLock { $0.lastOptions?.appAccountToken } == server.state.withLock { $0.issuedTokens["alice"] })
        let post = try #require(server.requests(endingWith: "/purchases").first)
        #expect(post.url.path == "/v1/apps/app/customers/alice/purchases" && post.headers["Authorization"] == "Bearer sk_app")
        #expect(String(decoding: post.body ?? Data(), as: UTF8.self).contains("signed.t1.jws"))
        #expect(await storekeeper.pendingPurchases().isEmpty)
    }

    @Test("a post that fails is not finished, is kept across launches and delivered once the server records it")
    func retriedNextLaunch() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t2")) }
        let first = try make(server, store: store, directory: directory)
        _ = try await first.appAccountToken()
        server.state.withLock { $0.online = false }
        let outcome = await first.purchase(productId: "premium.monthly")
        #expect(outcome.group == "charged_not_delivered")
        #expect(store.state.withLock { $0.finished }.isEmpty)
        #expect(await first.pendingPurchases().map(\.attempts) == [1])

        // The next launch, server back: posted again at start, then finished.
        server.state.withLock { $0.online = true }
        let second = try make(server, store: store, directory: directory)
        await second.start()
        await second.stop()
        #expect(store.state.withLock { $0.finished } == ["t2"])
        #expect(await second.pendingPurchases().isEmpty)
        #expect(server.requests(endingWith: "/purchases").count == 2)
    }

    @Test("past the bound the purchase is given up on and reaches the server as a problem with its evidence")
    func givenUp() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        server.state.withLock { $0.purchaseStatus = 503 }
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t3")) }
        let storekeeper = try make(server, store: store, directory: directory, attempts: 2)
        #expect(await storekeeper.purchase(productId: "premium.monthly").group == "charged_not_delivered")
        let outcomes = await storekeeper.retryPendingPurchases()
        guard case .chargedGivenUp(let id, _, let reported) = outcomes.first else {
            Issue.record("not given up: \(outcomes)")
            return
        }
        #expect(id == "t3" && reported)
        let report = try #require(server.requests(endingWith: "/problems").first)
        let body = try #require(try JSONSerialization.jsonObject(with: report.body ?? Data()) as? [String: Any])
        #expect(body["kind"] as? String == "charged_not_delivered" && body["transactionId"] as? String == "t3")
        #expect((body["evidence"] as? [String: String])?["attempts"] == "2")
        #expect(store.state.withLock { $0.finished }.isEmpty, "a given-up purchase stays unfinished for a restore to deliver")
        // Later runs neither post it again nor report it twice.
        _ = await storekeeper.retryPendingPurchases()
        #expect(server.requests(endingWith: "/purchases").count == 2 && server.requests(endingWith: "/problems").count == 1)
        // A restore delivers it once the server takes it.
        server.state.withLock { $0.purchaseStatus = 200 }
        _ = try await storekeeper.restorePurchases()
        #expect(store.state.withLock { $0.finished } == ["t3"])
    }

    @Test("a purchase the server refuses for good (422) is given up on at once")
    func refused() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        server.state.withLock { $0.purchaseStatus = 422 }
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t4")) }
        let outcome = await (try make(server, store: store, directory: directory, attempts: 5)).purchase(productId: "premium.monthly")
        #expect(outcome.group == "charged_given_up")
    }

    @Test(
        "failures before payment are not charged, with their reason",
        arguments: [
            (StorePurchaseResult.userCancelled, PurchaseOutcome.NotChargedReason.cancelled),
            (.pending, .pending), (.failed(.notAllowed), .notAllowed), (.failed(.productUnavailable), .productUnavailable),
            (.failed(.network), .networkBeforePayment),
        ])
    func notCharged(result: StorePurchaseResult, reason: PurchaseOutcome.NotChargedReason) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FakeStore()
        store.state.withLock { $0.nextResult = result }
        let storekeeper = try make(FakeServer(now: { Date() }), store: store, directory: directory)
        #expect(await storekeeper.purchase(productId: "premium.monthly") == .notCharged(reason))
        #expect(await storekeeper.pendingPurchases().isEmpty)
    }

    @Test("promoted purchases wait until the app allows them")
    func promoted() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FakeStore()
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t5")) }
        let storekeeper = try make(FakeServer(now: { Date() }), store: store, directory: directory)
        await storekeeper.start()
        store.state.withLock { _ = $0.intents?.yield(PurchaseIntent(productId: "premium.monthly")) }
        var queued: [PurchaseIntent] = []
        // Up to 120 s: a loaded machine can take seconds to run the intent's task.
        for _ in 0..<12_000 where queued.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            queued = await storekeeper.queuedPromotedPurchases()
        }
        #expect(queued == [PurchaseIntent(productId: "premium.monthly")])
        #expect(store.state.withLock { $0.finished }.isEmpty)
        let outcomes = await storekeeper.allowPromotedPurchases()
        #expect(outcomes.map(\.group) == ["delivered"])
        await storekeeper.stop()
    }

    @Test("the app account token is the one the server issued to the customer: asked once, kept on disk for later launches and offline purchases")
    func token() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeServer(now: { Date() })
        let store = FakeStore()
        let token = try await make(server, store: store, directory: directory).appAccountToken()
        #expect(token == server.state.withLock { $0.issuedTokens["alice"] })
        let asked = try #require(server.requests(endingWith: "/appAccountToken").first)
        #expect(asked.method == "POST" && asked.url.path == "/v1/apps/app/customers/alice/appAccountToken")
        #expect(asked.headers["Authorization"] == "Bearer sk_app")

        // The next launch, offline: the kept token, and the purchase is made with it.
        server.state.withLock { $0.online = false }
        let next = try make(server, store: store, directory: directory)
        #expect(try await next.appAccountToken() == token)
        store.state.withLock { $0.nextResult = .purchased(FakeStore.transaction("t9")) }
        #expect(await next.purchase(productId: "premium.monthly").group == "charged_not_delivered")
        #expect(store.state.withLock { $0.lastOptions?.appAccountToken } == token)
        #expect(server.requests(endingWith: "/appAccountToken").count == 1)

        // Another customer on the device has a token of its own; without the server, none.
        let bob = try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: URL(string: "https://sk.example")!, appId: "app", apiKey: "sk_app", appUserId: "bob", stateDirectory: directory),
            store: store, transport: server, clock: TestDeviceClock(wall: start).clock)
        await #expect(throws: StorekeeperError.self) { try await bob.appAccountToken() }
        #expect(await bob.purchase(productId: "premium.monthly").group == "not_charged")
        server.state.withLock { $0.online = true }
        let bobs = try await bob.appAccountToken()
        #expect(bobs != token && bobs == server.state.withLock { $0.issuedTokens["bob"] })
    }
}
